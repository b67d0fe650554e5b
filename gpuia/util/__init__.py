"""Plumbing every layer may use: atomic output files and input reading, signal handling, progress
lines and PNG images. Nothing here knows D3D, WGSL or the GPU."""
