// The child a Graft host starts to scan plugin files, run isolated plugins or
// a conformance test, so that a plugin that crashes or hangs takes down this
// process, not the host. See GraftHost's ChildMain for its roles.
import GraftConformance
import GraftHost

ChildMain.main(arguments: Array(CommandLine.arguments.dropFirst()), conform: ConformanceService.serve)
