((time 7.5)(op(Switch 0)))
((time 7.500001)(op(Creates 0 1)))
((time 7.500002)(op(Reads 0 1)))
((time 7.500003)(op(Resolves 0 1 None)))
 ( (op (Label 1 "spaced out") ) (time 8.) ) ; comment
