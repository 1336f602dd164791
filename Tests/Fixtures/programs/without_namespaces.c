// A system without namespaces for Graft's children, as far as the program it runs can tell: installs a seccomp
// filter (libseccomp) that refuses unshare with EPERM, as a container whose policy refuses namespaces does, and
// openat2 with EPERM, as the policies that predate it do (Docker's before 20.10); then runs
// its arguments as a command. The tests run `graft` under it to see private folders kept on disk, under a quota the
// host checks, and removed whatever a plugin left in them.
//     cc -o without_namespaces without_namespaces.c -lseccomp
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: without_namespaces PROGRAM [ARGUMENT...]\n");
        return 64;
    }
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (!filter || seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) != 0 ||
        seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat2), 0) != 0)
        return 70;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load(filter) != 0) {
        perror("without_namespaces: seccomp");
        return 70;
    }
    execvp(argv[1], argv + 1);
    perror("without_namespaces: exec");
    return 127;
}
