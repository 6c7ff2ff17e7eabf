#!/usr/bin/python3
"""lazyfs: a FUSE file system that loses what was not fsynced, on command (as Jepsen's LazyFS does).

    /usr/bin/python3 lazyfs.py BACKING MOUNTPOINT CONTROL_SOCKET

Everything under MOUNTPOINT is BACKING, except file *data*: a write goes to the file's pending
buffer in this process, and reaches BACKING only when the file is fsynced or fdatasynced (or the
`sync` command runs). Metadata is durable at once: create, mkdir, unlink, rmdir, rename, symlink,
chmod and utime go straight to BACKING, as if every directory were always synced (optimistic, like
LazyFS). close() and flush do NOT make data durable (Linux semantics). A truncate is data: pending
like a write. fsyncdir is accepted and does nothing (the directory is already durable).

Commands, one line each on the Unix socket CONTROL_SOCKET, answered with one JSON line:
    crash           a power cut: every pending write of every file is dropped
    crash-torn SEED a power cut that tears: for each file, a random prefix of its pending
                    operations (the last one cut at a random byte) reaches BACKING, the rest is lost
    sync            make everything pending durable (a clean shutdown)
    stats           how much is pending
A process with a file open keeps reading what it wrote (the pending buffer is the file's content)
until a crash; run a crash only once the processes using the mount are dead. After a crash the
kernel's caches of every inode are invalidated, so the next reader sees BACKING.

Prints "ready" on stdout once mounted and listening. SIGTERM, SIGINT or an external
`fusermount3 -u` unmounts and exits; pending data is then lost, as in a crash.
"""
import errno
import functools
import json
import os
import random
import signal
import stat
import sys
import traceback

import pyfuse3
import trio

ROOT = pyfuse3.ROOT_INODE
# Only this process changes BACKING, so the kernel may cache attributes and entries; a crash
# invalidates them. Short anyway, in case an invalidation is missed.
TIMEOUT = 1.0


class Inode:
    """One file or directory: where it is in BACKING and, for a file, its unsynced writes."""

    __slots__ = ('path', 'fd', 'opens', 'pending', 'size', 'key')

    def __init__(self, path, key):
        self.path = path  # None once unlinked
        self.key = key  # (st_dev, st_ino) of BACKING's file
        self.fd = None  # read-write fd on BACKING's file while open or pending
        self.opens = 0
        # ('w', offset, bytearray) or ('t', size), in order; coalesced appends.
        self.pending = []
        self.size = 0  # the logical size while pending is not empty


def answers_errors(cls):
    """Every FUSE handler answers an OSError with its errno and anything else with EIO (logged):
    pyfuse3 would otherwise end its main loop, and the mount with it, on one unexpected error."""
    for name in [n for n in dir(pyfuse3.Operations) if not n.startswith('_') and n not in ('init', 'stacktrace')]:
        fn = cls.__dict__.get(name)
        if not callable(fn):
            continue  # not overridden, or a setting such as enable_writeback_cache (which must stay False)

        def wrap(fn):
            @functools.wraps(fn)
            async def handler(*args, **kwargs):
                try:
                    return await fn(*args, **kwargs)
                except pyfuse3.FUSEError:
                    raise
                except OSError as e:
                    raise pyfuse3.FUSEError(e.errno or errno.EIO)
                except Exception:
                    traceback.print_exc(file=sys.stderr)
                    raise pyfuse3.FUSEError(errno.EIO)
            return handler
        setattr(cls, name, wrap(fn))
    return cls


@answers_errors
class LazyFs(pyfuse3.Operations):
    enable_writeback_cache = False  # every write() comes here before it returns

    def __init__(self, backing):
        super().__init__()
        self.inodes = {ROOT: Inode(backing, None)}
        self.by_key = {}
        self.next_ino = ROOT + 1
        self.dirs = {}
        self.next_dir = 1
        st = os.lstat(backing)
        self.inodes[ROOT].key = (st.st_dev, st.st_ino)
        self.by_key[self.inodes[ROOT].key] = ROOT

    # --- inode bookkeeping -------------------------------------------------------------------
    def _node(self, ino):
        n = self.inodes.get(ino)
        if n is None:
            raise pyfuse3.FUSEError(errno.ESTALE)
        return n

    def _path(self, ino, name=None):
        n = self._node(ino)
        if n.path is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return n.path if name is None else os.path.join(n.path, os.fsdecode(name))

    def _ino_for(self, st, path):
        key = (st.st_dev, st.st_ino)
        ino = self.by_key.get(key)
        if ino is None:
            ino = self.next_ino
            self.next_ino += 1
            self.by_key[key] = ino
            self.inodes[ino] = Inode(path, key)
        else:
            self.inodes[ino].path = path
        return ino

    def _attrs(self, ino, st):
        n = self.inodes[ino]
        a = pyfuse3.EntryAttributes()
        a.st_ino = ino
        a.generation = 0
        a.entry_timeout = TIMEOUT
        a.attr_timeout = TIMEOUT
        a.st_mode = st.st_mode
        a.st_nlink = st.st_nlink
        a.st_uid = st.st_uid
        a.st_gid = st.st_gid
        a.st_rdev = st.st_rdev
        a.st_size = n.size if n.pending else st.st_size
        a.st_blksize = 4096
        a.st_blocks = (a.st_size + 511) // 512
        a.st_atime_ns = st.st_atime_ns
        a.st_mtime_ns = st.st_mtime_ns
        a.st_ctime_ns = st.st_ctime_ns
        return a

    def _stat(self, ino):
        n = self._node(ino)
        try:
            if n.fd is not None:
                return os.fstat(n.fd)
            if n.path is None:
                raise pyfuse3.FUSEError(errno.ENOENT)
            return os.lstat(n.path)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)

    def _entry(self, path):
        try:
            st = os.lstat(path)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        ino = self._ino_for(st, path)
        return self._attrs(ino, st)

    def _gone(self, ino):
        """BACKING's file of `ino` lost its last name: forget it once nobody has it open."""
        n = self.inodes.get(ino)
        if n is None:
            return
        n.path = None
        self.by_key.pop(n.key, None)  # a new file that reuses the inode number is a new inode here
        if n.opens == 0:
            self._drop(ino)

    def _drop(self, ino):
        n = self.inodes.pop(ino, None)
        if n is not None and n.fd is not None:
            os.close(n.fd)
            n.fd = None

    def _ensure_fd(self, n):
        if n.fd is None:
            n.fd = os.open(n.path, os.O_RDWR | os.O_NOFOLLOW)
        return n.fd

    # --- pending data ------------------------------------------------------------------------
    def _start_pending(self, n):
        if not n.pending:
            n.size = os.fstat(self._ensure_fd(n)).st_size

    def _write(self, n, off, buf):
        self._start_pending(n)
        last = n.pending[-1] if n.pending else None
        if last is not None and last[0] == 'w' and last[1] + len(last[2]) == off:
            last[2].extend(buf)
        else:
            n.pending.append(('w', off, bytearray(buf)))
        n.size = max(n.size, off + len(buf))

    def _truncate(self, n, size):
        self._start_pending(n)
        n.pending.append(('t', size))
        n.size = size

    def _read(self, n, off, size):
        fd = self._ensure_fd(n)
        if not n.pending:
            return os.pread(fd, size, off)
        end = min(off + size, n.size)
        if end <= off:
            return b''
        buf = bytearray(os.pread(fd, end - off, off))
        buf.extend(bytes(end - off - len(buf)))
        for op in n.pending:
            if op[0] == 't':
                cut = max(op[1], off)
                if cut < end:
                    buf[cut - off:] = bytes(end - cut)
            else:
                o, d = op[1], op[2]
                lo, hi = max(o, off), min(o + len(d), end)
                if lo < hi:
                    buf[lo - off:hi - off] = d[lo - o:hi - o]
        return bytes(buf)

    def _apply(self, n, ops):
        fd = self._ensure_fd(n)
        for op in ops:
            if op[0] == 't':
                os.ftruncate(fd, op[1])
            else:
                os.pwrite(fd, op[2], op[1])

    def _flush(self, n):
        if n.pending:
            self._apply(n, n.pending)
            n.pending = []
        if n.opens == 0 and n.fd is not None:
            os.close(n.fd)
            n.fd = None

    # --- control commands --------------------------------------------------------------------
    def stats(self):
        files = [n for n in self.inodes.values() if n.pending]
        return {'files': len(files), 'ops': sum(len(n.pending) for n in files),
                'bytes': sum(len(op[2]) for n in files for op in n.pending if op[0] == 'w')}

    def crash(self, rng=None):
        before = self.stats()
        kept_ops = 0
        for n in list(self.inodes.values()):
            if not n.pending:
                continue
            if rng is not None and n.path is not None:
                k = rng.randint(0, len(n.pending))
                ops = n.pending[:k]
                if k < len(n.pending) and n.pending[k][0] == 'w':
                    o, d = n.pending[k][1], n.pending[k][2]
                    ops.append(('w', o, d[:rng.randint(0, len(d))]))
                kept_ops += len(ops)
                self._apply(n, ops)
            n.pending = []
            if n.opens == 0 and n.fd is not None:
                os.close(n.fd)
                n.fd = None
        for ino in list(self.inodes):
            try:
                pyfuse3.invalidate_inode(ino)
            except OSError:
                pass  # not in the kernel's cache
        before.update({'dropped': True, 'tornOpsKept': kept_ops})
        return before

    def sync_all(self):
        before = self.stats()
        for n in self.inodes.values():
            self._flush(n)
        return before

    # --- FUSE operations ---------------------------------------------------------------------
    async def lookup(self, parent_inode, name, ctx=None):
        if name == b'.':
            return await self.getattr(parent_inode)
        if name == b'..':
            return self._entry(os.path.dirname(self._path(parent_inode)))
        return self._entry(self._path(parent_inode, name))

    async def getattr(self, inode, ctx=None):
        return self._attrs(inode, self._stat(inode))

    async def setattr(self, inode, attr, fields, fh, ctx):
        n = self._node(inode)
        try:
            if fields.update_size:
                self._truncate(n, attr.st_size)
            path_or_fd = n.fd if n.fd is not None else self._path(inode)
            if fields.update_mode:
                os.chmod(path_or_fd, stat.S_IMODE(attr.st_mode))
            if fields.update_uid or fields.update_gid:
                os.chown(path_or_fd, attr.st_uid if fields.update_uid else -1, attr.st_gid if fields.update_gid else -1)
            if fields.update_atime or fields.update_mtime:
                st = self._stat(inode)
                os.utime(path_or_fd, ns=(attr.st_atime_ns if fields.update_atime else st.st_atime_ns,
                                         attr.st_mtime_ns if fields.update_mtime else st.st_mtime_ns))
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        return await self.getattr(inode)

    async def readlink(self, inode, ctx):
        try:
            return os.fsencode(os.readlink(self._path(inode)))
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)

    async def opendir(self, inode, ctx):
        path = self._path(inode)
        try:
            names = sorted(os.listdir(path))
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        fh = self.next_dir
        self.next_dir += 1
        self.dirs[fh] = (path, names)
        return fh

    async def readdir(self, fh, start_id, token):
        path, names = self.dirs[fh]
        for i in range(start_id, len(names)):
            try:
                attrs = self._entry(os.path.join(path, names[i]))
            except pyfuse3.FUSEError:
                continue  # removed meanwhile
            if not pyfuse3.readdir_reply(token, os.fsencode(names[i]), attrs, i + 1):
                break

    async def releasedir(self, fh):
        self.dirs.pop(fh, None)

    async def fsyncdir(self, fh, datasync):
        pass  # metadata is durable at once

    async def mkdir(self, parent_inode, name, mode, ctx):
        path = self._path(parent_inode, name)
        try:
            os.mkdir(path, mode)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        return self._entry(path)

    async def rmdir(self, parent_inode, name, ctx):
        path = self._path(parent_inode, name)
        try:
            st = os.lstat(path)
            os.rmdir(path)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        ino = self.by_key.get((st.st_dev, st.st_ino))
        if ino is not None:
            self._gone(ino)

    async def unlink(self, parent_inode, name, ctx):
        path = self._path(parent_inode, name)
        try:
            st = os.lstat(path)
            os.unlink(path)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        ino = self.by_key.get((st.st_dev, st.st_ino))
        if ino is not None and st.st_nlink <= 1:
            self._gone(ino)

    async def symlink(self, parent_inode, name, target, ctx):
        path = self._path(parent_inode, name)
        try:
            os.symlink(os.fsdecode(target), path)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        return self._entry(path)

    async def link(self, inode, new_parent_inode, new_name, ctx):
        raise pyfuse3.FUSEError(errno.EPERM)  # one path per inode; LevelDB does not hard-link

    async def rename(self, parent_inode_old, name_old, parent_inode_new, name_new, flags, ctx):
        old = self._path(parent_inode_old, name_old)
        new = self._path(parent_inode_new, name_new)
        if flags & pyfuse3.RENAME_EXCHANGE:
            raise pyfuse3.FUSEError(errno.EINVAL)
        try:
            st = os.lstat(old)
            try:
                replaced = os.lstat(new)
            except FileNotFoundError:
                replaced = None
            if replaced is not None and flags & pyfuse3.RENAME_NOREPLACE:
                raise pyfuse3.FUSEError(errno.EEXIST)
            os.rename(old, new)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        if replaced is not None and (replaced.st_dev, replaced.st_ino) != (st.st_dev, st.st_ino):
            gone = self.by_key.get((replaced.st_dev, replaced.st_ino))
            if gone is not None:
                self._gone(gone)
        moved = self.by_key.get((st.st_dev, st.st_ino))
        if moved is not None:
            self.inodes[moved].path = new
            if stat.S_ISDIR(st.st_mode):
                prefix = old + os.sep
                for n in self.inodes.values():
                    if n.path is not None and n.path.startswith(prefix):
                        n.path = new + os.sep + n.path[len(prefix):]

    async def open(self, inode, flags, ctx):
        n = self._node(inode)
        if n.path is None and n.fd is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        try:
            self._ensure_fd(n)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        n.opens += 1
        if flags & os.O_TRUNC:
            self._truncate(n, 0)
        # keep_cache False: the kernel drops its page cache of the file at every open.
        return pyfuse3.FileInfo(fh=inode, keep_cache=False)

    async def create(self, parent_inode, name, mode, flags, ctx):
        path = self._path(parent_inode, name)
        try:
            fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW | (flags & os.O_EXCL), mode)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)
        st = os.fstat(fd)
        ino = self._ino_for(st, path)
        n = self.inodes[ino]
        if n.fd is None:
            n.fd = fd
        else:
            os.close(fd)
        n.opens += 1
        if flags & os.O_TRUNC and st.st_size > 0:
            self._truncate(n, 0)
        return pyfuse3.FileInfo(fh=ino, keep_cache=False), self._attrs(ino, st)

    async def read(self, fh, off, size):
        try:
            return self._read(self._node(fh), off, size)
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)

    async def write(self, fh, off, buf):
        self._write(self._node(fh), off, buf)
        return len(buf)

    async def flush(self, fh):
        pass  # close() is not a sync

    async def fsync(self, fh, datasync):
        try:
            self._flush(self._node(fh))
        except OSError as e:
            raise pyfuse3.FUSEError(e.errno)

    async def release(self, fh):
        n = self.inodes.get(fh)
        if n is None:
            return
        n.opens -= 1
        if n.opens > 0:
            return
        if n.path is None:
            self._drop(fh)  # unlinked and closed: its data is gone, synced or not
        elif not n.pending and n.fd is not None:
            os.close(n.fd)
            n.fd = None

    async def statfs(self, ctx):
        s = os.statvfs(self.inodes[ROOT].path)
        out = pyfuse3.StatvfsData()
        for f in ('f_bsize', 'f_frsize', 'f_blocks', 'f_bfree', 'f_bavail', 'f_files', 'f_ffree', 'f_favail', 'f_namemax'):
            setattr(out, f, getattr(s, f))
        return out

    async def forget(self, inode_list):
        pass  # inodes are kept while their file exists (a few hundred for a LevelDB)


async def control(fs, sock_path):
    try:
        os.unlink(sock_path)
    except FileNotFoundError:
        pass
    sock = trio.socket.socket(trio.socket.AF_UNIX, trio.socket.SOCK_STREAM)
    await sock.bind(sock_path)
    sock.listen(16)
    listener = trio.SocketListener(sock)

    async def handle(stream):
        data = b''
        while not data.endswith(b'\n') and len(data) < 256:
            chunk = await stream.receive_some(256)
            if not chunk:
                break
            data += chunk
        words = data.decode('utf-8', 'replace').split()
        try:
            if words == ['crash']:
                out = fs.crash()
            elif len(words) == 2 and words[0] == 'crash-torn' and words[1].isdigit():
                out = fs.crash(random.Random(int(words[1])))
            elif words == ['sync']:
                out = fs.sync_all()
            elif words == ['stats']:
                out = fs.stats()
            else:
                out = {'error': f'unknown command {" ".join(words)!r} (crash | crash-torn SEED | sync | stats)'}
        except Exception as e:  # reported to the caller; the file system goes on
            out = {'error': repr(e)}
        await stream.send_all((json.dumps(out) + '\n').encode())
        await stream.aclose()

    print('ready', flush=True)
    await trio.serve_listeners(handle, [listener])


async def run(fs, sock_path):
    async with trio.open_nursery() as nursery:
        nursery.start_soon(control, fs, sock_path)
        nursery.start_soon(stop_on_signal)
        await pyfuse3.main()
        nursery.cancel_scope.cancel()


async def stop_on_signal():
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            pyfuse3.terminate()
            return


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    backing, mountpoint, sock_path = (os.path.abspath(a) for a in sys.argv[1:])
    fs = LazyFs(backing)
    opts = set(pyfuse3.default_options)
    opts.discard('default_permissions')
    opts.add('fsname=lazyfs')
    pyfuse3.init(fs, mountpoint, opts)
    try:
        trio.run(run, fs, sock_path)
    finally:
        pyfuse3.close(unmount=True)
        try:
            os.unlink(sock_path)
        except OSError:
            pass


if __name__ == '__main__':
    main()
