// The scanner child: a Graft host starts it to load plugin files it has not
// seen yet, so that a plugin that crashes or hangs takes down this process,
// not the host. See GraftHost's ScannerService.
import GraftHost

ScannerService.main(arguments: Array(CommandLine.arguments.dropFirst()))
