// expect: 2: preprocessor: no_such_header.h: No such file or directory
#include "no_such_header.h"
void k(void) {}
