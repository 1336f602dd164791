// A kernel without Landlock, as far as the program it runs can tell: installs a seccomp filter (libseccomp) that
// answers Landlock's three system calls with ENOSYS, as a kernel built without it, or a container whose seccomp
// policy refuses them, does; then runs its arguments as a command. The sandbox tests run `graft` under it.
//     cc -o without_landlock without_landlock.c -lseccomp
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: without_landlock PROGRAM [ARGUMENT...]\n");
        return 64;
    }
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    const char *calls[] = {"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        int nr = seccomp_syscall_resolve_name(calls[i]);
        if (nr != __NR_SCMP_ERROR && seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0) return 70;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load(filter) != 0) {
        perror("without_landlock: seccomp");
        return 70;
    }
    execvp(argv[1], argv + 1);
    perror("without_landlock: exec");
    return 127;
}
