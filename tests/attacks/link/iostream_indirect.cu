// constructors, the <iostream> way in, through a pointer: the global object's constructor,
// merged into <iostream>'s initializer, takes the address of a function it placed in the same
// section (no relocation for the `lea`) and calls it indirectly (no direct call to see).
#include <cstdio>
#include <iostream>
__attribute__((section(".text.startup"), noinline)) static void earlyWork() { puts("early"); }
struct Early {
    Early()
    {
        void (*volatile run)() = earlyWork;
        run();
    }
};
static Early early;
