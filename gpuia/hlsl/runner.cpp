// ---- gpuia: the CPU reference's runner (appended to Slang's C++ of the compute entry) ----
// Usage: <executable> FILE. FILE starts with a header and a table of regions; every region is
// a buffer of the compute entry (a cbuffer: pointer; a structured buffer: pointer and element
// count) at an offset of Slang's GlobalParams. The runner maps FILE, points the parameters at
// the regions, runs every group on all cores and exits 0; the outputs are written in place.
// Exit codes: 64 usage, 65 bad header, 66 cannot open, 71 cannot map, 72 region out of range.
// A run that ends 0 has also set the header's `done` word, which the caller checks.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuia_runner {
struct Header {
    char magic[8];
    uint64_t version, groups, threads, gp_size, regions, done;  // done: set at the very end
};
const uint64_t DONE = 0x454e4f44414955ULL;  // "UIADONE"
struct Region {
    uint64_t file_offset, length, gp_offset, kind;  // kind 0: pointer, 1: pointer + count
};
}  // namespace gpuia_runner

int main(int argc, char** argv) {
    using namespace gpuia_runner;
    if (argc != 2) return 64;
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) return 66;
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < sizeof(Header)) return 65;
    const uint64_t size = (uint64_t)st.st_size;
    char* base = (char*)mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == (char*)MAP_FAILED) return 71;
    Header h;
    memcpy(&h, base, sizeof h);
    if (memcmp(h.magic, "GPUIACPU", 8) != 0 || h.version != 1 || h.regions > 64 ||
        h.gp_size > 4096 || sizeof(Header) + h.regions * sizeof(Region) > size)
        return 65;
    std::vector<uint64_t> gp(h.gp_size / 8 + 2, 0);
    char* g = (char*)gp.data();
    for (uint64_t i = 0; i < h.regions; i++) {
        Region r;
        memcpy(&r, base + sizeof(Header) + i * sizeof(Region), sizeof r);
        const uint64_t need = r.kind == 1 ? 16 : 8;
        if (r.file_offset > size || r.length > size - r.file_offset || r.gp_offset + need > h.gp_size)
            return 72;
        void* p = base + r.file_offset;
        memcpy(g + r.gp_offset, &p, sizeof p);
        if (r.kind == 1) {
            size_t count = (size_t)(r.length / 4);
            memcpy(g + r.gp_offset + 8, &count, sizeof count);
        }
    }
    uint64_t threads = h.threads ? h.threads : 1;
    if (threads > h.groups) threads = h.groups ? h.groups : 1;
    std::vector<std::thread> pool;
    const uint64_t per = (h.groups + threads - 1) / threads;
    for (uint64_t t = 0; t < threads; t++) {
        const uint64_t start = t * per, end = start + per < h.groups ? start + per : h.groups;
        if (start >= end) break;
        pool.emplace_back([=]() {
            ComputeVaryingInput vi = {};
            vi.startGroupID.x = (uint32_t)start;
            vi.endGroupID.x = (uint32_t)end;
            vi.endGroupID.y = 1;
            vi.endGroupID.z = 1;
            hlslw_cpu(&vi, nullptr, g);
        });
    }
    for (auto& th : pool) th.join();
    memcpy(base + offsetof(Header, done), &DONE, sizeof DONE);
    if (msync(base, size, MS_SYNC) != 0) return 71;
    munmap(base, size);
    close(fd);
    return 0;
}
