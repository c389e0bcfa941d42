#!/usr/bin/env python3
"""Checks the layout rule of src/ (README, "Layout"): builds the file-level
import graph (which .rs file names which other one through `crate::`,
`super::` or `self::` paths, comments skipped, a module's declarations of its
own submodules not counted), then fails if any files form an import cycle,
if a file under src/arch/ names the API layer above it (the `bulk`,
`decode`, `encode`, `protobuf`, `avro`, `io` or `bytes_ext` modules), or if a
file other than lib.rs names an item through lib.rs's `pub use` re-exports
(`use crate::DecodeError;`, `crate::decode(..)`, `crate::{decode, VarInt}`)
instead of its defining module (`crate::error::DecodeError`):
imports point down to where an item is defined, never back up to the root.
Code only: comments and doc comments (intra-doc links) are skipped.

Usage: scripts/check-layout.py [SRC_DIR] [-v]   (-v prints the graph)
"""
import os, re, sys
args = [a for a in sys.argv[1:] if a != '-v']
root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3].split(os.sep)
            if rel[-1] == 'mod': rel = rel[:-1]
            if rel == ['lib']: rel = []
            files[tuple(rel)] = p
# root re-exports: name -> module
lib = open(os.path.join(root, 'lib.rs')).read()
reexp = {}
for m in re.finditer(r'pub use (\w+)::(\{[^}]*\}|\w+);', lib):
    mod, names = m.group(1), m.group(2)
    for n in re.findall(r'\w+', names):
        reexp[n] = (mod,)
def resolve(segs):
    # longest prefix that is a file
    for k in range(len(segs), 0, -1):
        if tuple(segs[:k]) in files: return tuple(segs[:k])
    return None
def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)
def strip_strings(text):
    # string literals (`#[doc = "..."]` text, messages), newlines kept for
    # the line numbers
    return re.sub(r'"(?:\\.|[^"\\])*"', lambda m: '""' + '\n' * m.group(0).count('\n'), text)
def group_heads(body):
    # the entries of a `{...}` use group, top level only
    heads, depth, cur = [], 0, ''
    for c in body + ',':
        if c == '{': depth += 1
        elif c == '}': depth -= 1
        if depth == 0 and c == ',':
            heads.append(cur.strip()); cur = ''
        else:
            cur += c
    # (first segment, whether a path continues after it)
    return [(re.match(r'\w*', h).group(0), bool(re.match(r'\w+\s*::', h))) for h in heads if h]
def group_body(text, start):
    # text[start] == '{': the text up to its matching '}'
    depth = 0
    for j in range(start, len(text)):
        depth += {'{': 1, '}': -1}.get(text[j], 0)
        if depth == 0: return text[start + 1:j]
    return text[start + 1:]
root_paths = []  # (file, line, path) naming a root re-export
graph = {k: set() for k in files}
for mod, path in files.items():
    text = strip_comments(open(path).read())
    if mod != ():
        code = strip_strings(text)
        # paths from the crate root (`crate::`, `$crate::`); a top-level
        # file's `super::` is left out: in this crate it only appears in
        # inline child modules, where it names the file's own module
        for m in re.finditer(r'\bcrate::(\{|\w+)((?:::\w+)*(?:::[{*])?)', code):
            if m.group(1) == '{':
                heads = group_heads(group_body(code, m.start(1)))
            else:
                heads = [(m.group(1), bool(m.group(2)))]
            for head, longer in heads:
                # `crate::decode::decode` and `crate::decode::{..}` name the
                # module, `crate::decode(` or `crate::decode::<u32>(` the
                # re-exported function
                if head in reexp and not ((head,) in files and longer):
                    line = code.count('\n', 0, m.start()) + 1
                    root_paths.append((path, line, head))
    # module of this file for super::
    for m in re.finditer(r'\b(crate|super|self)((?:::\w+)+)', text):
        base, rest = m.group(1), m.group(2).split('::')[1:]
        if base == 'crate': segs = rest
        elif base == 'super':
            parent = list(mod[:-1]) if not path.endswith('mod.rs') else list(mod[:-1])
            segs = parent + rest
        else:
            segs = list(mod) + rest
        if segs and segs[0] in reexp and len(segs) == 1 or (segs and tuple(segs[:1]) not in files and segs[0] in reexp):
            segs = list(reexp[segs[0]]) + segs[1:]
        tgt = resolve(segs)
        if tgt is not None and tgt != mod and tgt != ():
            # naming a child module from its parent's mod declarations is not an import
            graph[mod].add(tgt)
    # `use super::x` etc. handled above; `mod x;` declarations are not imports
def name(m): return files[m]
# drop edges parent -> own submodule (re-exports of a child are declarations)
for m in graph:
    graph[m] = {t for t in graph[m] if not (len(t) > len(m) and t[:len(m)] == m)}
# cycles via Tarjan
index, low, stack, on, out, i = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(comp)
sys.setrecursionlimit(10000)
for v in graph:
    if v not in index: strong(v)
if '-v' in sys.argv:
    for m in sorted(graph):
        print(name(m), '->', ', '.join(sorted(name(t) for t in graph[m])))
for comp in out:
    print('cycle:', ' '.join(sorted(name(c) for c in comp)))
arch_up = [(name(m), name(t)) for m in graph for t in graph[m] if m[:1] == ('arch',) and t[:1] in {('bulk',), ('decode',), ('encode',), ('protobuf',), ('avro',), ('io',), ('bytes_ext',)}]
for a, b in arch_up: print('arch names the API layer:', a, '->', b)
for f, l, n in root_paths:
    print(f'{f}:{l}: names `{n}` through the crate root\'s re-export; '
          f'name its module ({"::".join(reexp[n])}::{n})')
print(f'{len(files)} files, {len(out)} cycles, {len(arch_up)} upward imports from arch/, '
      f'{len(root_paths)} paths through root re-exports')
sys.exit(1 if out or arch_up or root_paths else 0)
