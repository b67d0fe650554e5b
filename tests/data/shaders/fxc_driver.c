/* Compile one HLSL entry point with Microsoft's d3dcompiler_47.dll (FXC) and write what it gives:
 * the blob (D3DCompile), its disassembly (D3DDisassemble) and D3DReflect's signatures and GS
 * declarations, constant buffers and bindings as text. Built with mingw-w64, run under Wine by regen.py:
 *   fxc_driver.exe DLL SOURCE ENTRY TARGET FLAGS OUT.cso OUT.asm OUT.reflect
 * Exit status 0, or 1 after a message on stderr. */
#define D3D_COMPILER_VERSION 47
#define INITGUID
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <d3dcompiler.h>
#include <d3d11shader.h>

typedef HRESULT (WINAPI *compile_fn)(const void *, SIZE_T, const char *, const D3D_SHADER_MACRO *,
                                     ID3DInclude *, const char *, const char *, UINT, UINT,
                                     ID3DBlob **, ID3DBlob **);
typedef HRESULT (WINAPI *disassemble_fn)(const void *, SIZE_T, UINT, const char *, ID3DBlob **);
typedef HRESULT (WINAPI *reflect_fn)(const void *, SIZE_T, REFIID, void **);

static int fail(const char *what) { fprintf(stderr, "fxc_driver: %s\n", what); return 1; }

static int write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) return 0;
    return fclose(f) == 0;
}

static void signature(FILE *out, ID3D11ShaderReflection *r, const char *kind, UINT count,
                      HRESULT (STDMETHODCALLTYPE *get)(ID3D11ShaderReflection *, UINT,
                                                       D3D11_SIGNATURE_PARAMETER_DESC *)) {
    for (UINT i = 0; i < count; i++) {
        D3D11_SIGNATURE_PARAMETER_DESC p;
        if (FAILED(get(r, i, &p))) continue;
        fprintf(out, "%s %s %u %u %d %d %u %u %u %d\n", kind, p.SemanticName, p.SemanticIndex,
                p.Register, (int)p.SystemValueType, (int)p.ComponentType, p.Mask,
                p.ReadWriteMask, p.Stream, (int)p.MinPrecision);
    }
}

int main(int argc, char **argv) {
    if (argc != 9) return fail("usage: DLL SOURCE ENTRY TARGET FLAGS OUT.cso OUT.asm OUT.reflect");
    HMODULE dll = LoadLibraryA(argv[1]);
    if (!dll) return fail("cannot load the DLL");
    compile_fn compile = (compile_fn)GetProcAddress(dll, "D3DCompile");
    disassemble_fn disassemble = (disassemble_fn)GetProcAddress(dll, "D3DDisassemble");
    reflect_fn reflect = (reflect_fn)GetProcAddress(dll, "D3DReflect");
    if (!compile || !disassemble || !reflect) return fail("missing D3DCompile/Disassemble/Reflect");
    FILE *f = fopen(argv[2], "rb");
    if (!f) return fail("cannot read the source");
    static char source[1 << 20];
    size_t size = fread(source, 1, sizeof source, f);
    fclose(f);
    ID3DBlob *code = NULL, *errors = NULL, *text = NULL;
    HRESULT hr = compile(source, size, argv[2], NULL, NULL, argv[3], argv[4],
                         (UINT)strtoul(argv[5], NULL, 0), 0, &code, &errors);
    if (errors) fprintf(stderr, "%.*s", (int)errors->lpVtbl->GetBufferSize(errors),
                        (const char *)errors->lpVtbl->GetBufferPointer(errors));
    if (FAILED(hr)) return fail("D3DCompile failed");
    const void *blob = code->lpVtbl->GetBufferPointer(code);
    SIZE_T blob_size = code->lpVtbl->GetBufferSize(code);
    if (!write_file(argv[6], blob, blob_size)) return fail("cannot write the blob");
    if (FAILED(disassemble(blob, blob_size, 0, NULL, &text))) return fail("D3DDisassemble failed");
    if (!write_file(argv[7], text->lpVtbl->GetBufferPointer(text),
                    strnlen(text->lpVtbl->GetBufferPointer(text), text->lpVtbl->GetBufferSize(text))))
        return fail("cannot write the disassembly");
    ID3D11ShaderReflection *r = NULL;
    if (FAILED(reflect(blob, blob_size, &IID_ID3D11ShaderReflection, (void **)&r)))
        return fail("D3DReflect failed");
    D3D11_SHADER_DESC d;
    if (FAILED(r->lpVtbl->GetDesc(r, &d))) return fail("GetDesc failed");
    FILE *out = fopen(argv[8], "w");
    if (!out) return fail("cannot write the reflection");
    fprintf(out, "version %u\ngs %d %u %d %u\n", d.Version, (int)d.GSOutputTopology,
            d.GSMaxOutputVertexCount, (int)d.InputPrimitive, d.cGSInstanceCount);
    signature(out, r, "input", d.InputParameters, r->lpVtbl->GetInputParameterDesc);
    signature(out, r, "output", d.OutputParameters, r->lpVtbl->GetOutputParameterDesc);
    signature(out, r, "patch", d.PatchConstantParameters, r->lpVtbl->GetPatchConstantParameterDesc);
    for (UINT i = 0; i < d.BoundResources; i++) {
        D3D11_SHADER_INPUT_BIND_DESC b;
        if (SUCCEEDED(r->lpVtbl->GetResourceBindingDesc(r, i, &b)))
            fprintf(out, "binding %s %d %u %u\n", b.Name, (int)b.Type, b.BindPoint, b.BindCount);
    }
    for (UINT i = 0; i < d.ConstantBuffers; i++) {
        ID3D11ShaderReflectionConstantBuffer *cb = r->lpVtbl->GetConstantBufferByIndex(r, i);
        D3D11_SHADER_BUFFER_DESC c;
        if (FAILED(cb->lpVtbl->GetDesc(cb, &c))) continue;
        fprintf(out, "cbuffer %s %d %u\n", c.Name, (int)c.Type, c.Size);
        for (UINT v = 0; v < c.Variables; v++) {
            ID3D11ShaderReflectionVariable *var = cb->lpVtbl->GetVariableByIndex(cb, v);
            D3D11_SHADER_VARIABLE_DESC vd;
            if (SUCCEEDED(var->lpVtbl->GetDesc(var, &vd)))
                fprintf(out, "variable %s %s %u %u\n", c.Name, vd.Name, vd.StartOffset, vd.Size);
        }
    }
    return fclose(out) == 0 ? 0 : fail("cannot write the reflection");
}
