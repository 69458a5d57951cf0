"""Re-runs of the seed papers' own experiments (their figures, their
measures), next to the per-estimator benchmarks of the parent package."""
