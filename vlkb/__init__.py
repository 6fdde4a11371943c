"""vlkb: turn a failed vision-language-model training log into its root cause and fix."""
__version__ = "0.1.0"
