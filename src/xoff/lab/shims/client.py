"""The lab hosts' shim client: a small C program that stands for each NIC tool of a host (hard-linked under
the tool's name, ``install_tools``) instead of a ``sh`` wrapper and a Python interpreter, when the lab's shim
server runs (``server.py``). Run as ``xoff-shim-client SOCKET MODULE PYTHON [ARG...]`` it does the same for
the call it is given.

A collect runs about ten NIC tools per host, each a new Python process before this (interpreter start
and imports, ~16 ms of CPU, against ~1 ms of the tool's own work): on a 2-core machine the 48 hosts of
a 64-device lab spent more CPU starting shims than everything else of a live validate. The client
connects to the server's UNIX socket and hands it the call: the tool's module and arguments, the
environment, and, as file descriptors (``SCM_RIGHTS``), its stdin, stdout and stderr, its network and
mount namespaces and its working directory; the server's worker (or forked child) runs the tool there and
writes straight to the caller's stdout and stderr. The client then exits with the tool's status.

Where the server is not there (no socket, refused, or it says it cannot run this call as a new
interpreter would, ``F``), the client execs the interpreter as the wrapper's last line does
(``PYTHON -S -c 'from xoff.lab.shims.MODULE import cli; cli()' ARGS``), so a call never depends on the
server. ``build`` compiles it once per source version and compiler (``compile_command``: static against musl
where it is installed, else gcc).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PROGRAM = "xoff-shim-client"
CONFIG = ".xoff-shims"  # in a host's tool directory: what the client installed as each tool reads (tool mode)

CLIENT_C = r"""
/* xoff lab shim client: see xoff/lab/shims/client.py (protocol: xoff/lab/shims/server.py) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define PROGRAM "xoff-shim-client"
#define CONFIG ".xoff-shims"

extern char **environ;

#define NFDS 6

static void run_python(const char *python, const char *module, int nargs, char **args) {
    char code[256];
    snprintf(code, sizeof code, "from xoff.lab.shims.%s import cli; cli()", module);
    char **argv = calloc((size_t)nargs + 5, sizeof *argv);
    if (argv == NULL) { perror("xoff-shim-client"); exit(127); }
    argv[0] = (char *)python; argv[1] = "-S"; argv[2] = "-c"; argv[3] = code;
    for (int i = 0; i < nargs; i++) argv[4 + i] = args[i];
    execv(python, argv);
    fprintf(stderr, "%s: %s\n", python, strerror(errno));
    exit(127);
}

static int append(char **buf, size_t *len, size_t *cap, const char *s) {
    size_t n = strlen(s) + 1;
    if (*len + n > *cap) {
        size_t want = (*cap + n) * 2;
        char *grown = realloc(*buf, want);
        if (grown == NULL) return -1;
        *buf = grown; *cap = want;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    return 0;
}

/* Send the request; 0 when all of it went out. */
static int send_request(int sock, int nargs, char **args, const char *module) {
    size_t len = 4, cap = 4096;  /* the first 4 bytes: the length of what follows */
    char *buf = malloc(cap), count[16];
    if (buf == NULL) return -1;
    snprintf(count, sizeof count, "%d", nargs);
    if (append(&buf, &len, &cap, module) < 0 || append(&buf, &len, &cap, count) < 0) return -1;
    for (int i = 0; i < nargs; i++) if (append(&buf, &len, &cap, args[i]) < 0) return -1;
    for (char **e = environ; *e != NULL; e++) if (append(&buf, &len, &cap, *e) < 0) return -1;
    uint32_t body = (uint32_t)(len - 4);
    memcpy(buf, &body, 4);

    int fds[NFDS] = {0, 1, 2, -1, -1, -1};
    fds[3] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    fds[4] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
    fds[5] = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int ok = fds[3] >= 0 && fds[4] >= 0 && fds[5] >= 0;
    for (int i = 0; i < 3 && ok; i++) ok = fcntl(i, F_GETFD) >= 0;  /* a closed stdio: run it ourselves */
    ssize_t sent = -1;
    if (ok) {
        char control[CMSG_SPACE(sizeof fds)];
        memset(control, 0, sizeof control);
        struct iovec iov = {buf, len};
        struct msghdr msg = {0};
        msg.msg_iov = &iov; msg.msg_iovlen = 1;
        msg.msg_control = control; msg.msg_controllen = sizeof control;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET; cm->cmsg_type = SCM_RIGHTS; cm->cmsg_len = CMSG_LEN(sizeof fds);
        memcpy(CMSG_DATA(cm), fds, sizeof fds);
        sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
        while (sent > 0 && (size_t)sent < len) {
            ssize_t more = send(sock, buf + sent, len - (size_t)sent, MSG_NOSIGNAL);
            if (more <= 0) { sent = -1; break; }
            sent += more;
        }
    }
    for (int i = 3; i < NFDS; i++) if (fds[i] >= 0) close(fds[i]);
    free(buf);
    return sent == (ssize_t)len ? 0 : -1;
}

/* Tool mode: this program installed as the tool itself (a link named after it in the host's tool directory).
   The directory's CONFIG file says, a line each: the socket, the interpreter, PYTHONPATH, XOFF_HOST_ROOT,
   then "tool module" lines. It sets what the sh wrapper would (XOFF_SHIM_ARGV0: the path the caller
   executed, as $0 of a script is) and returns the socket, module and interpreter; NULL when it is not
   installed so (run as xoff-shim-client). */
static char config_text[16384];

static char *next_line(char **at) {
    char *line = *at, *end = strchr(line, '\n');
    if (end == NULL) return NULL;
    *end = '\0'; *at = end + 1;
    return line;
}

static int tool_mode(const char *argv0, const char **path, const char **module, const char **python) {
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    const char *name = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    if (execfn == NULL || strcmp(name, PROGRAM) == 0) return -1;
    char self[4096], config[4096 + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL) return -1;
    *slash = '\0';
    snprintf(config, sizeof config, "%s/%s", self, CONFIG);
    int fd = open(config, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t got = read(fd, config_text, sizeof config_text - 1);
    close(fd);
    if (got <= 0) return -1;
    config_text[got] = '\0';
    char *at = config_text, *src, *root, *line;
    *path = next_line(&at); *python = next_line(&at); src = next_line(&at); root = next_line(&at);
    if (*path == NULL || *python == NULL || src == NULL || root == NULL) return -1;
    *module = NULL;
    while ((line = next_line(&at)) != NULL) {
        char *space = strchr(line, ' ');
        if (space != NULL) { *space = '\0'; if (strcmp(line, name) == 0) *module = space + 1; }
    }
    if (*module == NULL) return -1;
    if (setenv("XOFF_HOST_ROOT", root, 1) != 0 || setenv("XOFF_SHIM_ARGV0", execfn, 1) != 0 ||
        setenv("PYTHONPATH", src, 1) != 0) return -1;
    return 0;
}

int main(int argc, char **argv) {
    const char *path, *module, *python;
    int nargs; char **args;
    if (tool_mode(argv[0], &path, &module, &python) == 0) {
        nargs = argc - 1; args = argv + 1;
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode)) run_python(python, module, nargs, args);  /* no server */
    } else if (argc < 4) {
        fprintf(stderr, "usage: %s SOCKET MODULE PYTHON [ARG...]\n", argv[0]);
        return 2;
    } else {
        path = argv[1]; module = argv[2]; python = argv[3];
        nargs = argc - 4; args = argv + 4;
    }
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0 || strlen(path) >= sizeof addr.sun_path) run_python(python, module, nargs, args);
    memcpy(addr.sun_path, path, strlen(path));
    if (connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0 || send_request(sock, nargs, args, module) != 0) {
        close(sock);  /* nothing ran: the server acts on a whole request only */
        run_python(python, module, nargs, args);
    }
    unsigned char reply[2];
    size_t got = 0;
    while (got < 1) {
        ssize_t n = read(sock, reply + got, sizeof reply - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (got >= 1 && reply[0] == 'F') {  /* the server will not run this call: nothing ran */
        close(sock);
        run_python(python, module, nargs, args);
    }
    while (got < 2) {
        ssize_t n = read(sock, reply + got, sizeof reply - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    if (got == 2 && reply[0] == 'X') return reply[1];
    fprintf(stderr, "%s (xoff lab shim): the lab's shim server gave no exit status\n", module);
    return 255;
}
"""


def compile_command() -> list[str] | None:
    """How the client is compiled (the output and source follow): statically against musl where ``musl-gcc`` is
    installed (Debian's musl-tools), else with gcc or cc against the system's libc; None without a compiler.

    Why musl: the client is started ~500 times per collect of a 64-device lab and does almost nothing, so its
    start is its cost. glibc reads the CPU's cache sizes with ``cpuid`` at every start (``init_cacheinfo``), and
    on a virtual machine that traps ``cpuid`` that is most of a dynamically linked program's ~0.8 ms of CPU
    (a static glibc program too: ~0.6 ms); a static musl program starts in ~0.07 ms (measured on the lab
    machine, a fork and exec of an empty ``main`` each)."""
    musl = shutil.which("musl-gcc")
    if musl is not None:
        return [musl, "-O2", "-Wall", "-Werror", "-static"]
    cc = shutil.which("gcc") or shutil.which("cc")
    return None if cc is None else [cc, "-O2", "-Wall", "-Werror"]


def build(directory: str | os.PathLike[str]) -> Path | None:
    """The client in ``directory``: compiled once per source version into a cache under the temporary
    directory and copied from there. Its path, or None without a C compiler (the wrappers then run the
    interpreter, as without a server)."""
    compiler = compile_command()
    if compiler is None:
        return None
    digest = hashlib.sha256("\0".join([CLIENT_C, *compiler]).encode()).hexdigest()[:16]
    built = Path(tempfile.gettempdir()) / f"xoff-shim-client-{os.getuid()}-{digest}" / PROGRAM
    if not built.is_file():
        built.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=built.parent) as work:  # concurrent builds each in their own
            source, tmp = Path(work) / "client.c", Path(work) / PROGRAM
            source.write_text(CLIENT_C, encoding="utf-8")
            cmd = [*compiler, "-o", str(tmp), str(source)]
            subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120)
            tmp.replace(built)
    out = Path(directory) / PROGRAM
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_name(f".{PROGRAM}.{os.getpid()}.tmp")
    shutil.copyfile(built, tmp_out)
    tmp_out.chmod(0o755)
    tmp_out.replace(out)
    return out


def install_tools(
    bin_dir: Path, client: Path, sock: Path, python: str, src: str, state_root: Path, tools: dict[str, str]
) -> None:
    """The client as each tool of ``tools`` (name -> shim module) in a host's ``bin_dir``: a hard link (a copy
    across file systems) named after the tool, and the directory's ``CONFIG`` saying what the tool's ``sh``
    wrapper would set (``xoff.lab.shims.wrapper_text``); a call then starts one small program instead of
    ``sh`` and the program. Without the server's socket it runs the interpreter, as the wrapper does."""
    lines = [str(sock), python, src, str(state_root), *(f"{tool} {module}" for tool, module in tools.items())]
    config = bin_dir / CONFIG
    tmp = config.with_name(f"{CONFIG}.{os.getpid()}.tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(config)
    for tool in tools:
        tmp = bin_dir / f".{tool}.{os.getpid()}.tmp"
        tmp.unlink(missing_ok=True)
        try:
            os.link(client, tmp)
        except OSError:  # another file system: a copy
            shutil.copyfile(client, tmp)
            tmp.chmod(0o755)
        tmp.replace(bin_dir / tool)
