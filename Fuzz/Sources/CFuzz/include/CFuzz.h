#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): SwiftPM gives
 * an executable its own main, so each target starts the fuzzer from it. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));
