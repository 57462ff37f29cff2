// Removing the temporary output files of a run that a signal ends (SIGINT,
// SIGTERM, SIGHUP, SIGPIPE). OutputBatch reports each temporary to
// temporary_cleanup() before creating it; the handler unlinks the ones still
// registered (one not created yet: the unlink fails, harmlessly), which is
// all it does besides restoring the default action and raising the
// signal again, so the run ends as the signal asked (its exit status says
// which). Signals that were ignored when the tool started (nohup) stay
// ignored.
#pragma once

#include "graph/output_batch.h"

namespace pt::app {

// Installs the handlers; call once, early in main.
void install_temporary_cleanup();

// The watcher to give every OutputBatch of the app.
TemporaryFileWatcher* temporary_cleanup();

}  // namespace pt::app
