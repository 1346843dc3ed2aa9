(skein-trace 1 (process "hostile"))
(spawn 10 1 0 task)
(switch 4611686018427387904 1)
(end 4611686018427387903)
