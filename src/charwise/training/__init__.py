"""Training: targets and noise -> encoder -> losses -> the one training engine.

``engine`` runs every model charwise trains (approximation, hybrid tuning, taggers); the other
modules are what the approximation phase and hybrid tuning feed it.
"""
