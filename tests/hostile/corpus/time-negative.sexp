(skein-trace 1 (process "hostile"))
(spawn -1 1 0 task)
(end -9223372036854775808)
