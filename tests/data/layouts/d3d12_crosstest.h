/* Reconstructed for gpuia's tests: what vkd3d-proton's tests/d3d12_crosstest.h (and the
 * vkd3d_test.h it includes) give the reconstructed test files: the D3D12 header and
 * ARRAY_SIZE. */
#pragma once
#include <stdint.h>
#include <d3d12.h>

#define ARRAY_SIZE(x) (sizeof(x) / sizeof(*(x)))
