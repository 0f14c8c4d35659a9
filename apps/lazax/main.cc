// The lazax command-line tool.
#include <cstdio>
int main() { std::puts("lazax"); return 0; }
