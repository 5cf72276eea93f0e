// constructors, the <iostream> way in: GCC 12 gives this file a std::ios_base::Init object,
// whose initializer the link rules accept, and merges the global object's constructor into it.
// The constructor's work is a file-local function that GCC puts beside the initializer, so the
// call to it needs no relocation (`jmp 0 <_ZL9earlyWorkv>` in the disassembly): only the
// direct calls show it. It runs before main.
#include <cstdio>
#include <iostream>
static void __attribute__((noinline)) earlyWork() { puts("early"); }
struct Early {
    Early() { earlyWork(); }
};
static Early early;
