#ifndef GUILD_CSYSTEMD_SHIM_H
#define GUILD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
// The plain sd_journal_sendv (no CODE_FILE/CODE_LINE of this header): guildd sends its own code location.
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>
#endif
