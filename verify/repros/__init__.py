"""Minimal reproductions of KB failures, one module each, run as
`python -m vlkb.verify.repros.<module> --mode before|after --device cpu|cuda`.

"before" runs the failing configuration and lets the failure surface as the real library prints it
(a traceback, a NaN metric); "after" runs the same steps with the entry's documented fix and exits 0.
Tiny random-init models, no downloads. Only this shipped code runs, never anything taken from a log.
"""
