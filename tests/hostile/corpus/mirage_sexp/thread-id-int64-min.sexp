((time 1.0)(op(Creates 0 1 Task)))
((time 1.5)(op(Creates 0 -9223372036854775808 Task)))
