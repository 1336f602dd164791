// The scanner child: a Graft host starts it to load plugin files it has not
// seen yet, so that a plugin that crashes or hangs takes down this process,
// not the host. See GraftHost's ScannerService; `conform` runs one
// conformance test (GraftConformance's ConformanceService).
import GraftConformance
import GraftHost

ScannerService.main(arguments: Array(CommandLine.arguments.dropFirst()), conform: ConformanceService.serve)
