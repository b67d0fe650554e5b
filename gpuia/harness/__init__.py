"""Running and judging cases: the case file model, reference and GPU runs of a case, the
comparison rules, cross-checks (captures and the raster check), lint and reports."""
