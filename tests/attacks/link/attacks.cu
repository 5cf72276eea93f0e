// Link-rule attacks (tests/test_link.c): appended to the lab 01 solution, each must be a build
// error that names its symbol and rule. One object holds them all; each test pins one line.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

// defines: fake the host timer the harness reads
extern "C" int clock_gettime(clockid_t, struct timespec *ts)
{
    ts->tv_sec = 0;
    ts->tv_nsec = 0;
    return 0;
}

// defines: a second main
int main() { return 0; }

// defines: a strong copy of a harness function (the TODO reporter)
void cml_todo(const char *, const char *) {}

// defines: a kernel with C linkage, named like a libc function
extern "C" __global__ void sched_yield_kernel(float *p) { p[0] = 1; }
extern "C" __global__ void getauxval(float *p) { p[0] = 2; } // no file of the harness calls it

// defines: operator new replaces the runtime's allocator for the harness too
void *operator new(size_t n) { return malloc(n ? n : 1); }

// constructors: code before main
__attribute__((constructor)) static void runsBeforeMain() { puts("early"); }

// constructors: a global object with a destructor (registered through __cxa_atexit), in a file
// that includes <iostream>: GCC builds both in one initializer, which the allowance for
// <iostream>'s own (link.rules `initializer`) must not cover
#include <iostream>
struct Noisy {
    ~Noisy() { puts("late"); }
};
static Noisy noisyGlobal;
// the same rule for objects an honest file might keep at file scope: its message names each by
// its source name and line (a namespace, an anonymous one, std::string's ABI tag)
#include <map>
#include <string>
namespace tally {
std::map<int, int> launches;
}
namespace {
struct Ticks { Ticks() : t(1) {} int t; };
Ticks ticks[4];
}
std::string banner = "lab 01";
// constructors: a global object built at a priority of its own, before or beside the harness's
// constructor that takes the grader's seed (101): refused whatever it does
static std::string firstInLine __attribute__((init_priority(101))) = "before the seed";

// constructors: an exit handler registered from ordinary code
static void onExit() { puts("bye"); }
void registerExitHandler() { atexit(onExit); }

// calls (file-access)
void *openSecrets() { return fopen("/etc/passwd", "r"); }

// calls (process-control): execve reached through a function-pointer table in data
typedef int (*exec_fn)(const char *, char *const *, char *const *);
static exec_fn volatile execTable[] = { execve };
int runThroughTable(int i) { return execTable[i]("/bin/true", nullptr, nullptr); }

// calls (dynamic-loading)
void *loadLibrary() { return dlopen("libc.so.6", RTLD_NOW); }

// calls (driver-api): the driver API loads kernels from any cubin, the references' too
extern "C" int cuModuleLoad(void **module, const char *fname);
int loadModule() { void *m; return cuModuleLoad(&m, "reference.cubin"); }
void *driverEntry()
{
    void *fn = nullptr;
    cudaGetDriverEntryPoint("cuLaunchKernel", &fn, 0, nullptr);
    return fn;
}

// asm: a system call made directly from host code
long rawGetpid()
{
    long r;
    asm volatile("syscall" : "=a"(r) : "a"(39) : "rcx", "r11", "memory");
    return r;
}

// defines: a global variable with an unmangled name could interpose a library's (environ)
int exportedCounter = 1;

// calls (lesson): lab 01's output written by the copy engine in place of a kernel (its spec's
// link_deny, with the reason); reported at its line
void copyInsteadOfKernel(float *out, const float *in, size_t n, cudaStream_t s)
{
    cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
}

// calls (driver-api): the runtime's table of driver entry points, past the link evidence
const void *exportTable()
{
    const void *t = nullptr;
    cudaGetExportTable(&t, nullptr);
    return t;
}

// calls (file-access): the CUDA runtime's own log written to a file
void dumpLogs() { cudaLogsDumpToFile(nullptr, "/tmp/log", 0); }

// asm: a line directive would make the code below look as if a system header held it
#line 1 "/usr/include/stdio.h"
long hiddenGetpid()
{
    long r;
    asm volatile("syscall" : "=a"(r) : "a"(39) : "rcx", "r11", "memory");
    return r;
}

// calls (environment): the whole environment, past getenv's single answer, where a tool's
// variables would tell a profiled run from a graded one
extern char **environ;
int countVariables() { int n = 0; while (environ[n]) n++; return n; }

// calls (inputs): the grading's seed, from which the expected output could be written without
// reading the input
unsigned long long peekSeed() { return (unsigned long long)cml_seed(); }


// calls (profiler): NVTX's memory API, through which the harness tells compute-sanitizer the
// exact bytes a task may touch (common/cml_exact.cpp): unregistering them would hide an access
// outside the task's range from memcheck
extern "C" void nvtxMemRegionsUnregister(void *domain, const void *desc);
void widenRegions(const void *desc) { nvtxMemRegionsUnregister(nullptr, desc); }

// calls (harness): the harness library's own host clock, past the host-timer rule, and its
// case-failing call, which could end a case it was not asked to
double cml_now_ms(void);
void cml_case_fail(const char *fmt, ...);
double probeTime() { return cml_now_ms(); }
void endCase() { cml_case_fail("done"); }
// and the call that sets the bytes memcheck holds a task to (common/cml_exact.cpp)
void cml_exact(const float *p, size_t elems);
void widenBounds(const float *p) { cml_exact(p - 4, 8); }
