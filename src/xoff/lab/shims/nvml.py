"""The lab hosts' NVML: a small C ``libnvidia-ml.so.1`` answering the NVML calls ``xoff watch`` needs from the
host's GPU facts, so the real ``pynvml`` (nvidia-ml-py) runs against it unchanged.

A lab host has no GPU and no NVIDIA driver. ``build`` compiles ``NVML_C`` (gcc) into ``<dir>/libnvidia-ml.so.1``
(soname ``libnvidia-ml.so.1``, the name pynvml ``dlopen``s); the lab puts ``<dir>`` on the host's
``LD_LIBRARY_PATH``. The library reads ``$XOFF_HOST_ROOT/var/lib/xoff-shims/nvml.txt`` (``write_facts``: one line
per GPU, ``<index> <sm MHz> <max sm MHz> <reasons hex>``, ``-`` for a value the GPU does not report) again on every
call, so a fault that changes the facts shows at the next read, as a real GPU's clocks do.

Implemented, with NVML's signatures and return codes (nvml.h; the values pynvml mirrors): ``nvmlInit``,
``nvmlInit_v2``, ``nvmlInitWithFlags`` (``NVML_ERROR_DRIVER_NOT_LOADED`` when the host has no facts file, as
on a host without the driver), ``nvmlShutdown``, ``nvmlErrorString``, ``nvmlSystemGetDriverVersion``,
``nvmlDeviceGetCount(_v2)``, ``nvmlDeviceGetHandleByIndex(_v2)``, ``nvmlDeviceGetIndex``,
``nvmlDeviceGetClockInfo`` and ``nvmlDeviceGetMaxClockInfo`` for ``NVML_CLOCK_GRAPHICS`` (0) and
``NVML_CLOCK_SM`` (1) (``NVML_ERROR_NOT_SUPPORTED`` for the other clock domains and for a value reported as ``-``),
``nvmlDeviceGetCurrentClocksEventReasons`` and its older name ``nvmlDeviceGetCurrentClocksThrottleReasons``. Every
other NVML symbol is absent: pynvml raises ``NVMLError_FunctionNotFound`` for it, as with an older driver.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from xoff.lab.shims._state import State

FACTS = "var/lib/xoff-shims/nvml.txt"
LIBRARY = "libnvidia-ml.so.1"

NVML_C = r"""
/* xoff lab shim of NVML (libnvidia-ml.so.1): see xoff/lab/shims/nvml.py */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct xoff_gpu *nvmlDevice_t;
enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, INSUFFICIENT_SIZE = 7,
       DRIVER_NOT_LOADED = 9, UNKNOWN = 999 };
struct xoff_gpu { unsigned int index; long long sm, max_sm, reasons; };
#define MAX_GPUS 64
static struct xoff_gpu gpus[MAX_GPUS];
static unsigned int count;
static int inited;

static long long field(const char *text, int base) { return strcmp(text, "-") ? strtoll(text, 0, base) : -1; }

static int load(void) {
    const char *root = getenv("XOFF_HOST_ROOT");
    char path[4096], line[512], sm[64], top[64], reasons[64];
    unsigned int index;
    snprintf(path, sizeof path, "%s/%s", root ? root : "", "var/lib/xoff-shims/nvml.txt");
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    count = 0;
    while (fgets(line, sizeof line, f) && count < MAX_GPUS) {
        if (line[0] == '#' || sscanf(line, "%u %63s %63s %63s", &index, sm, top, reasons) != 4) continue;
        gpus[count].index = index;
        gpus[count].sm = field(sm, 10);
        gpus[count].max_sm = field(top, 10);
        gpus[count].reasons = field(reasons, 16);
        count++;
    }
    fclose(f);
    return 1;
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { (void)flags; if (!load()) return DRIVER_NOT_LOADED; inited++; return OK; }
nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
nvmlReturn_t nvmlInit(void) { return nvmlInitWithFlags(0); }
nvmlReturn_t nvmlShutdown(void) { if (!inited) return UNINITIALIZED; inited--; return OK; }

const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
    case OK: return "Success";
    case UNINITIALIZED: return "Uninitialized";
    case INVALID_ARGUMENT: return "Invalid Argument";
    case NOT_SUPPORTED: return "Not Supported";
    case INSUFFICIENT_SIZE: return "Insufficient Size";
    case DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (!inited) return UNINITIALIZED;
    if (!version) return INVALID_ARGUMENT;
    if (length < 10) return INSUFFICIENT_SIZE;
    snprintf(version, length, "%s", "550.90.07");
    return OK;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) {
    if (!inited) return UNINITIALIZED;
    if (!n) return INVALID_ARGUMENT;
    load();
    *n = count;
    return OK;
}
nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { return nvmlDeviceGetCount_v2(n); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (!inited) return UNINITIALIZED;
    if (!device || index >= count) return INVALID_ARGUMENT;
    *device = &gpus[index];
    return OK;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

static struct xoff_gpu *fresh(nvmlDevice_t device) {
    if (!inited || device < gpus || device >= gpus + count) return 0;
    unsigned int index = device->index;
    load();  /* the clocks now, not at init */
    for (unsigned int i = 0; i < count; i++) if (gpus[i].index == index) return &gpus[i];
    return 0;
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    struct xoff_gpu *g = fresh(device);
    if (!g || !index) return g ? INVALID_ARGUMENT : (inited ? INVALID_ARGUMENT : UNINITIALIZED);
    *index = g->index;
    return OK;
}

static nvmlReturn_t answer(long long value, unsigned int *out) {
    if (value < 0) return NOT_SUPPORTED;
    *out = (unsigned int)value;
    return OK;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock) {
    struct xoff_gpu *g = fresh(device);
    if (!inited) return UNINITIALIZED;
    if (!g || !clock) return INVALID_ARGUMENT;
    return type == 0 || type == 1 ? answer(g->sm, clock) : NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int *clock) {
    struct xoff_gpu *g = fresh(device);
    if (!inited) return UNINITIALIZED;
    if (!g || !clock) return INVALID_ARGUMENT;
    return type == 0 || type == 1 ? answer(g->max_sm, clock) : NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons) {
    struct xoff_gpu *g = fresh(device);
    if (!inited) return UNINITIALIZED;
    if (!g || !reasons) return INVALID_ARGUMENT;
    if (g->reasons < 0) return NOT_SUPPORTED;
    *reasons = (unsigned long long)g->reasons;
    return OK;
}
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons) {
    return nvmlDeviceGetCurrentClocksEventReasons(device, reasons);
}
"""


def facts_text(state: State) -> str:
    """The facts file of a host's GPUs (their ``clocks`` in the state)."""
    lines = ["# xoff lab NVML facts: index sm_mhz max_sm_mhz reasons_hex ('-': not reported)"]
    for gpu in state.get("gpus", []):
        clocks = gpu.get("clocks") or {}
        sm, top, reasons = clocks.get("sm_mhz"), clocks.get("max_sm_mhz"), clocks.get("reasons")
        lines.append(
            f"{gpu['index']} {'-' if sm is None else int(sm)} {'-' if top is None else int(top)} "
            f"{'-' if reasons is None else format(int(reasons), '#x')}"
        )
    return "\n".join(lines) + "\n"


def write_facts(root: str | os.PathLike[str], state: State) -> None:
    """Write the facts file under the host's state root (nothing for a host without GPUs)."""
    if not state.get("gpus"):
        return
    path = Path(root) / FACTS
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(facts_text(state), encoding="utf-8")
    tmp.replace(path)  # the library never reads half a file


def build(directory: str | os.PathLike[str]) -> Path | None:
    """The library in ``directory``: compiled once per source version into a cache under the temporary directory
    and copied from there. Its path, or None without a C compiler (the host then has no NVML, as a host without
    the driver)."""
    digest = hashlib.sha256(NVML_C.encode()).hexdigest()[:16]
    built = Path(tempfile.gettempdir()) / f"xoff-nvml-{os.getuid()}-{digest}" / LIBRARY
    if not built.is_file():
        cc = shutil.which("gcc") or shutil.which("cc")
        if cc is None:
            return None
        built.parent.mkdir(parents=True, exist_ok=True)
        # A name of its own per build: labs in other processes and the lab's own host threads may build at once.
        with tempfile.TemporaryDirectory(dir=built.parent) as work:
            source, tmp = Path(work) / "nvml.c", Path(work) / LIBRARY
            source.write_text(NVML_C, encoding="utf-8")
            cmd = [
                cc,
                "-shared",
                "-fPIC",
                "-O2",
                "-Wall",
                "-Werror",
                "-Wl,-soname," + LIBRARY,
                "-o",
                str(tmp),
                str(source),
            ]
            subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120)
            tmp.replace(built)  # whoever finishes last wins, with the same bytes
    out = Path(directory) / LIBRARY
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_name(LIBRARY + ".tmp")
    shutil.copyfile(built, tmp_out)
    tmp_out.replace(out)
    return out
