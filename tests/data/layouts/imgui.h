// Reconstructed for gpuia's tests: the parts of Dear ImGui's imgui.h that the dx12 backend's
// input layout depends on (ImDrawVert and its member types).
#pragma once
#include <stddef.h>

typedef unsigned int ImU32;

struct ImVec2
{
    float x, y;
    constexpr ImVec2() : x(0.0f), y(0.0f) { }
    constexpr ImVec2(float _x, float _y) : x(_x), y(_y) { }
    float& operator[] (size_t idx) { return ((float*)(void*)(char*)this)[idx]; }
};

struct ImDrawVert
{
    ImVec2  pos;
    ImVec2  uv;
    ImU32   col;
};
