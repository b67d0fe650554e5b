// Reconstructed for gpuia's tests: what DirectX-Graphics-Samples' stdafx.h and the sample class
// headers (D3D12HelloTriangle.h, D3D12HDR.h, D3D12Fullscreen.h) declare that the reconstructed
// LoadAssets functions use.
#pragma once
#include <windows.h>
#include <d3d12.h>
#include <DirectXMath.h>

using namespace DirectX;

class D3D12HelloTriangle
{
    void LoadAssets();
    D3D12_VERTEX_BUFFER_VIEW m_vertexBufferView;
};

class D3D12HDR
{
    void LoadAssets();
};

class D3D12Fullscreen
{
    void LoadAssets();
};
