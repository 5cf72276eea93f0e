// constructors: a host function named like a kernel is not one. The kernel takes (float *,
// int *), the host overload (float *): the overload's mangled name, _Z9warmStartPf, lies inside
// the kernel's stub name (__device_stub__Z9warmStartPfPi...), so a check that took any stub
// holding a name for a kernel would not read the overload, which prints. A global table holds
// the overload's address: it is judged as the student's code it is.
#include <cstdio>
#include <vector>
__global__ void warmStart(float *p, int *q) { p[0] = (float)q[0]; }
void warmStart(float *p) { puts("not a kernel"); p[0] = 0.0f; }
static const std::vector<void (*)(float *)> g_warm = { warmStart };
size_t warmCount() { return g_warm.size(); }
