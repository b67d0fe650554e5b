// gpuia's launcher (gpuia.hlsl.launcher): contains a process as gpuia.hlsl.sandbox's
// preexec step does, then becomes it, so that gpuia can start it without forking itself.
//
// argv: launcher ERRFD PARENT ISOLATE N (RESOURCE SOFT HARD){N} PROGRAM ARGS...
// In order: ERRFD (the write end of gpuia's pipe) is closed on exec; PR_SET_PDEATHSIG is
// SIGKILL, and the launcher ends (status 1) when PARENT died before that; each limit is set
// (one the system refuses stays as it was, as in gpuia's preexec step); with ISOLATE 1, new
// user and network namespaces where permitted; then PROGRAM is run (found on PATH as Python's
// subprocess finds it). When it cannot be run, its errno goes to ERRFD and the launcher ends
// with status 127; gpuia raises the OSError its subprocess module would have raised.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static bool number(const char *text, long long *out) {
    char *end = nullptr;
    errno = 0;
    *out = std::strtoll(text, &end, 10);
    return errno == 0 && end != text && *end == '\0';
}

// execv on each candidate as Python's subprocess tries them: PROGRAM itself when it names a
// folder, else each folder of PATH (os.defpath without one; an empty entry: as given), never a
// shell for a file that is not a program (execvp would). The errno: the first that is not
// ENOENT or ENOTDIR, else the last.
static int run(char **program) {
    const char *name = program[0];
    if (std::strchr(name, '/')) {
        execv(name, program);
        return errno;
    }
    const char *folders = std::getenv("PATH");
    if (!folders) folders = "/bin:/usr/bin";
    char candidate[8192];  // a longer one: ENAMETOOLONG, as execve gives past PATH_MAX
    size_t n = std::strlen(name);
    int first = 0, last = ENOENT;
    for (const char *at = folders;;) {
        const char *end = std::strchr(at, ':');
        size_t length = end ? (size_t)(end - at) : std::strlen(at);
        if (length + n + 2 > sizeof candidate) {
            last = ENAMETOOLONG;
        } else {
            std::memcpy(candidate, at, length);
            size_t from = length ? length + 1 : 0;  // an empty entry: the name as given
            if (length) candidate[length] = '/';
            std::memcpy(candidate + from, name, n + 1);
            execv(candidate, program);
            last = errno;
        }
        if (first == 0 && last != ENOENT && last != ENOTDIR) first = last;
        if (!end) break;
        at = end + 1;
    }
    return first ? first : last;
}

int main(int argc, char **argv) {
    long long errfd, parent, isolate, n;
    if (argc < 6 || !number(argv[1], &errfd) || !number(argv[2], &parent) ||
        !number(argv[3], &isolate) || !number(argv[4], &n) || n < 0 || argc < 6 + 3 * n)
        return 126;  // not gpuia's call: nothing is run
    if (fcntl((int)errfd, F_SETFD, FD_CLOEXEC) != 0) return 126;
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != (pid_t)parent) _exit(1);  // gpuia died before the setting
    for (long long i = 0; i < n; ++i) {
        long long res, soft, hard;
        if (!number(argv[5 + 3 * i], &res) || !number(argv[6 + 3 * i], &soft) ||
            !number(argv[7 + 3 * i], &hard))
            return 126;
        struct rlimit lim = {(rlim_t)soft, (rlim_t)hard};  // -1: RLIM_INFINITY
        setrlimit((int)res, &lim);
    }
    if (isolate) unshare(CLONE_NEWUSER | CLONE_NEWNET);  // best effort: refused in many containers
    char **program = argv + 5 + 3 * n;
    int e = run(program);
    ssize_t ignored = write((int)errfd, &e, sizeof e);
    (void)ignored;
    _exit(127);
}
