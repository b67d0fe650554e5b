// Shared helpers (found through the case file's folder, as #include does in an engine build).
#ifndef DAMPING
#define DAMPING 0.98
#endif
float3 damp(float3 v) { return v * DAMPING; }
