import Testing

/// Every workbench suite, one after another: each starts servers, child
/// processes and (in Chromium's suite) a browser, and on a two-core machine
/// they are kinder to each other, and to the rest of the run, in turn.
@Suite("Workbench", .serialized)
struct WorkbenchTests {}
