// Start-up prefault of the program's code (prefault_text.cpp): whether it
// ran, and if not, why.
#pragma once

namespace pt::app {

// "on" or "off (reason)", for the log.
const char* prefault_text_state();

}  // namespace pt::app
