#ifndef GUILD_CSYSTEMD_SHIM_H
#define GUILD_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#endif
