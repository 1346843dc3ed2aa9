// freed_memory.hpp — giving the system back the memory a large piece of
// work has freed. glibc's malloc keeps freed memory in its heaps (the
// main one and one per thread that allocated), and past its dynamic mmap
// threshold even a vector of hundreds of megabytes comes from a heap: once
// a whole trace's arrays have been built and dropped (a load's second
// thread, a view filter toggled off), the process would stay that much
// larger for as long as it runs. malloc_trim(0) returns every free page of
// every heap. It walks the heaps' free lists, not the memory in use: a few
// milliseconds after a load or a filter of 10M records. Elsewhere than
// glibc it does nothing.
#pragma once

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace skein {

inline void release_freed_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace skein
