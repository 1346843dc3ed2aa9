((time 1.0)(op(Creates 0 1 Task)))
((time 4611686019.427387904)(op(Switch 1)))
