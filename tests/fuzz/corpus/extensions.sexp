(skein-trace 1)
(read 3 1 0 (future "field" (x 1)) 42 sym) ; comment
(unknown-head 1 2)

(notify 5 3 4)
(resolve 6 4 3 cancel)
