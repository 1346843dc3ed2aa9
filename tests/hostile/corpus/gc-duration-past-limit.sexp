(skein-trace 1 (process "hostile"))
(gc 10 9223372036854775807)
(end 20)
