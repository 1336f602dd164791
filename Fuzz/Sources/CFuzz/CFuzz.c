/* Only the header: libFuzzer defines the function. */
