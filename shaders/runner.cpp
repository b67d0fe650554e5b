// ---- gpuia: the CPU reference's runner (appended to Slang's C++ of the compute entry) ----
// Usage: <executable> SIZE, with the shared file of SIZE bytes open read-write on standard
// input (gpuia.hlsl.sandbox starts it so: no path to open, no other descriptor). The file
// starts with a header and a table of regions; every region is a buffer of the compute entry
// (a cbuffer: pointer; a structured buffer: pointer and element count) at an offset of Slang's
// GlobalParams. The runner maps the file, points the parameters at the regions, runs every
// group on all cores and exits 0; the outputs are written in place.
// Exit codes: 64 usage, 65 bad header, 71 cannot map, 72 region out of range.
// A run that ends 0 has also set the header's `done` word, which the caller checks, and its
// `undefined` word to what the shader did that D3D leaves undefined (cpu_defined.cpp).
//
// Containment (Linux on x86-64 and AArch64): before anything of the shader runs, a seccomp
// filter allows only what mapping the file, running threads and exiting need; any other system
// call (open, execve, socket, fork, kill of another process, ...) ends the process with SIGSYS,
// which gpuia reports. It is installed by a constructor of priority 101, which runs before every
// static initialiser of default priority in this program (Slang's output included); only code
// that chose an earlier priority itself (which gpuia's refusals keep out of the source) would
// run before it. Where the filter cannot be installed (another kernel, another system), the
// runner runs without it: gpuia's refusals and its resource limits remain.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

namespace gpuia_sandbox {
#if defined(__x86_64__)
const uint32_t ARCH = AUDIT_ARCH_X86_64;
#else
const uint32_t ARCH = AUDIT_ARCH_AARCH64;
#endif
const uint32_t X32_BIT = 0x40000000u;  // x86-64's x32 numbers: never this program's

// The system calls the runner needs once it runs: memory (the file's mapping, malloc, thread
// stacks), threads (clone with CLONE_THREAD, futex, their start and exit), signal masks (a
// thread's start, abort()), time, yielding and random bytes, writing to standard output or
// error, and exiting.
const long ALLOWED[] = {
    SYS_close, SYS_munmap, SYS_mremap, SYS_madvise, SYS_msync, SYS_brk, SYS_futex,
    SYS_set_robust_list, SYS_rt_sigprocmask, SYS_rt_sigaction, SYS_rt_sigreturn,
    SYS_sched_yield, SYS_nanosleep, SYS_clock_nanosleep, SYS_clock_gettime,
    SYS_gettimeofday, SYS_getpid, SYS_gettid, SYS_exit, SYS_exit_group, SYS_restart_syscall,
#ifdef SYS_rseq
    SYS_rseq,
#endif
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#endif
#ifdef SYS_getrandom
    SYS_getrandom,
#endif
};
const uint32_t PR_SET_VMA_NAME = 0x53564d41;  // PR_SET_VMA: a C library naming its mappings

#define GPUIA_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define GPUIA_ARG_LO(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define GPUIA_RETURN(action) BPF_STMT(BPF_RET | BPF_K, (action))

const uint32_t KILL = SECCOMP_RET_KILL_PROCESS;
const uint32_t ALLOW = SECCOMP_RET_ALLOW;

void install() {
    std::vector<sock_filter> f;
    auto emit = [&](sock_filter s) { f.push_back(s); };
    // Another architecture's numbering: kill (the numbers below would mean other calls).
    emit(GPUIA_LOAD(arch));
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0));
    emit(GPUIA_RETURN(KILL));
    emit(GPUIA_LOAD(nr));
#if defined(__x86_64__)
    emit(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 0, 1));
    emit(GPUIA_RETURN(KILL));
#endif
    for (long nr : ALLOWED) {
        emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
        emit(GPUIA_RETURN(ALLOW));
    }
    // write/writev: standard output and error only (gpuia gives it /dev/null for both).
    const long writes[] = {SYS_write, SYS_writev};
    for (long nr : writes) {
        emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 5));
        emit(GPUIA_ARG_LO(0));
        emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 2, 0));
        emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 1, 0));
        emit(GPUIA_RETURN(KILL));
        emit(GPUIA_RETURN(ALLOW));
    }
    // mmap/mprotect: never executable memory (no code made at run time).
    const long maps[] = {SYS_mmap, SYS_mprotect};
    for (long nr : maps) {
        emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 4));
        emit(GPUIA_ARG_LO(2));
        emit(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1));
        emit(GPUIA_RETURN(KILL));
        emit(GPUIA_RETURN(ALLOW));
    }
    // clone: threads only (CLONE_THREAD), never a new process.
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
    emit(GPUIA_ARG_LO(0));
    emit(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0));
    emit(GPUIA_RETURN(KILL));
    emit(GPUIA_RETURN(ALLOW));
#ifdef SYS_clone3
    // clone3 keeps its flags in memory a filter cannot read: "not here", and the C library
    // falls back to clone, checked above.
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
    emit(GPUIA_RETURN(SECCOMP_RET_ERRNO | ENOSYS));
#endif
    // prctl: only naming memory (a newer C library may name thread stacks and heaps).
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 4));
    emit(GPUIA_ARG_LO(0));
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_VMA_NAME, 0, 1));
    emit(GPUIA_RETURN(ALLOW));
    emit(GPUIA_RETURN(KILL));
    // tgkill: only this process (abort() signals itself).
    const uint32_t self = (uint32_t)getpid();
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 4));
    emit(GPUIA_ARG_LO(0));
    emit(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1));
    emit(GPUIA_RETURN(ALLOW));
    emit(GPUIA_RETURN(KILL));
    emit(GPUIA_RETURN(KILL));  // everything else
    sock_fprog prog = {(unsigned short)f.size(), f.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return;
    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
}
}  // namespace gpuia_sandbox

__attribute__((constructor(101))) static void gpuia_runner_contain() { gpuia_sandbox::install(); }
#endif

namespace gpuia_runner {
struct Header {
    char magic[8];
    uint64_t version, groups, threads, gp_size, regions;
    uint64_t undefined;  // what D3D leaves undefined that the shader did (gpuia_undefined)
    uint64_t done;       // set at the very end
};
const uint64_t DONE = 0x454e4f44414955ULL;  // "UIADONE"
struct Region {
    // kind 0: pointer; 1: pointer + length / 4 (a count of words); k >= 2: pointer +
    // length / (k - 1) (a ByteAddressBuffer's bytes: 2; a StructuredBuffer's elements); with
    // FILL, a typed view whose last element is its out-of-bounds value: the count is one less,
    // FILL set in it (gpuia's StructuredBuffer reads data[count] past the view)
    uint64_t file_offset, length, gp_offset, kind;
};
const uint64_t FILL = 1ULL << 63;
}  // namespace gpuia_runner

int main(int argc, char** argv) {
    using namespace gpuia_runner;
    if (argc != 2) return 64;
    char* end = nullptr;
    errno = 0;
    const uint64_t size = strtoull(argv[1], &end, 10);
    if (errno != 0 || end == argv[1] || *end != '\0' || size < sizeof(Header)) return 65;
    char* base = (char*)mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0);
    if (base == (char*)MAP_FAILED) return 71;
    Header h;
    memcpy(&h, base, sizeof h);
    // Sanity bounds of a file gpuia writes: regions are the inputs, outputs, constant buffers
    // and up to 7 x 128 SRVs; each takes at most 16 bytes of the global parameters.
    if (memcmp(h.magic, "GPUIACPU", 8) != 0 || h.version != 3 || h.regions > 1024 ||
        h.gp_size > (1u << 16) || sizeof(Header) + h.regions * sizeof(Region) > size)
        return 65;
    std::vector<uint64_t> gp(h.gp_size / 8 + 2, 0);
    char* g = (char*)gp.data();
    for (uint64_t i = 0; i < h.regions; i++) {
        Region r;
        memcpy(&r, base + sizeof(Header) + i * sizeof(Region), sizeof r);
        const uint64_t k = r.kind & ~FILL;
        const uint64_t need = k >= 1 ? 16 : 8;
        if (r.file_offset > size || r.length > size - r.file_offset || r.gp_offset + need > h.gp_size)
            return 72;
        void* p = base + r.file_offset;
        memcpy(g + r.gp_offset, &p, sizeof p);
        if (k >= 1) {
            size_t count = (size_t)(k == 1 ? r.length / 4 : r.length / (k - 1));
            if (r.kind & FILL) {
                if (count == 0) return 72;  // a typed view's region holds its fill element
                count = (count - 1) | (size_t)FILL;
            }
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
    const uint64_t undefined = __atomic_load_n(&gpuia_undefined, __ATOMIC_RELAXED);
    memcpy(base + offsetof(Header, undefined), &undefined, sizeof undefined);
    memcpy(base + offsetof(Header, done), &DONE, sizeof DONE);
    if (msync(base, size, MS_SYNC) != 0) return 71;
    munmap(base, size);
    return 0;
}
