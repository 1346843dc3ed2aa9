// pixel_count.hpp — how the viewer's GUI tests check pixels: the number of
// pixels in an area of a grabbed image within `tolerance` of a colour (the
// sum of the red, green and blue differences), clipped to the image; and
// the number of pixels where two images of one size differ.
#pragma once

#include <QColor>
#include <QImage>
#include <QRect>
#include <algorithm>
#include <cstdlib>

namespace skein::test {

inline int count_colour(const QImage& image, const QRect& area, const QColor& colour, int tolerance) {
  int n = 0;
  for (int y = std::max(0, area.top()); y <= std::min(image.height() - 1, area.bottom()); ++y)
    for (int x = std::max(0, area.left()); x <= std::min(image.width() - 1, area.right()); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) + std::abs(c.blue() - colour.blue()) <=
          tolerance)
        ++n;
    }
  return n;
}

inline int count_differing(const QImage& a, const QImage& b) {
  int n = 0;
  for (int y = 0; y < std::min(a.height(), b.height()); ++y)
    for (int x = 0; x < std::min(a.width(), b.width()); ++x) n += a.pixel(x, y) != b.pixel(x, y);
  return n;
}

}  // namespace skein::test
