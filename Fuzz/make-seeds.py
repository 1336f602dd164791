#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (Corpus/<target>/): a few valid
inputs the fuzzer mutates from. Run again when a format changes."""
import json, os, struct, glob

here = os.path.dirname(os.path.abspath(__file__))

def u8(v): return struct.pack('<B', v)
def u16(v): return struct.pack('<H', v)
def u32(v): return struct.pack('<I', v)
def f64(v): return struct.pack('<d', v)
def string(s): b = s.encode(); return u32(len(b)) + b
def optional(s): return u8(0) if s is None else u8(1) + string(s)
def lst(items): return u32(len(items)) + b''.join(items)

def value(v):
    if v is None: return u8(0)
    if isinstance(v, bool): return u8(1) + u8(1 if v else 0)
    if isinstance(v, (int, float)): return u8(2) + f64(float(v))
    if isinstance(v, str): return u8(3) + string(v)
    if isinstance(v, list): return u8(4) + lst([value(x) for x in v])
    return u8(5) + lst([string(k) + value(x) for k, x in sorted(v.items())])

def fields(fs): return lst([string(k) + string(t) + optional(d) for k, t, d in fs])

WIRE_VERSION = 5
def frame(kind, id, payload): return b'GRFT' + u16(WIRE_VERSION) + u16(kind) + u32(id) + u32(len(payload)) + payload

component = (string('date_picker') + u32(1) + optional('Date picker') + optional(None)
    + fields([('label', 'string', 'shown above'), ('min', 'number', None)])
    + lst([string('changed') + optional(None) + fields([('date', 'string', None)])])
    + value({'label': 'When?', 'min': 0})
    + lst([string('pick') + optional('picks a day') + fields([('day', 'number', None)])])
    + lst([string('empty') + optional(None) + value({'label': ''})]))
plugin = (string('com.example.dates') + string('1.2.0') + string('Dates') + optional('Example') + optional(None)
    + u16(1) + u16(3) + u8(1) + lst([component])
    + lst([string('iso_date') + u32(1) + optional(None) + optional(None) + fields([('format', 'string', None)]) + optional('bad date')])
    + lst([string('open_url') + u32(1) + optional(None) + optional(None) + fields([('url', 'string', None)])])
    + lst([string('network:api.example.com:443') + string('weather')]))
warnings = lst([string('contract_mismatch') + string('payload drifted')])
error = string('render_failed') + string('no \x1b[31mcolour') + optional('render') + optional(None)

wire = {
    'emitted-then-rendered': frame(29, 0, u32(1) + string('changed') + u8(1) + value({'date': '2026-11-29'}) + warnings)
        + frame(16, 2, string('text/plain') + string('hello') + lst([])),
    'created': frame(14, 1, u32(1) + lst([])),
    'failed': frame(12, 3, error),
    'described': frame(4, 1, plugin),
    'loaded': frame(11, 1, u32(0) + plugin),
    'validated': frame(26, 3, u8(0) + optional('not a date')),
    'value-deep': frame(16, 2, value([[[[{'a': [1, 2.5, None, True, 'x']}]]]])),
}
for name, data in wire.items():
    open(os.path.join(here, 'Corpus/wire', name), 'wb').write(data)

samples = [{'label': 'When?', 'min': 0, 'tags': ['a', 'b'], 'nested': {'x': None, 'y': True}},
    [1, -2.5e-3, 1e308, '\u00e9\\"\n'], 'text', 0, None]
for index, sample in enumerate(samples):
    open(os.path.join(here, f'Corpus/json/sample-{index}.json'), 'w').write(json.dumps(sample))
for path in sorted(glob.glob(os.path.join(here, '../Examples/**/*.json'), recursive=True))[:8]:
    data = open(path, 'rb').read()
    if len(data) < 4096:
        open(os.path.join(here, 'Corpus/json', 'example-' + os.path.basename(path)), 'wb').write(data)

# Descriptors: the harness draws fields from bytes in order (see fuzz-descriptors/main.swift).
def s(text): b = text.encode(); return u8(len(b)) + b
NULL = b'\xff'
def field(key, tag): return s(key) + u8(tag) + NULL
def count(n): return u8(n)
one = (s('date_picker') + u8(1) + s('Date picker') + NULL
    + count(2) + field('label', 3) + field('min', 2)
    + count(1) + s('changed') + NULL + count(1) + field('date', 3)
    + s('{"label":"When?","min":1}')
    + count(1) + s('pick') + NULL + count(1) + field('day', 2) + u8(0))
descriptors = {
    'one-component': u8(3) + u8(1) + one,
    'two-the-same': u8(3) + u8(2) + one + one,
    'abi-1.0': u8(0) + u8(1) + one,
}
for name, data in descriptors.items():
    open(os.path.join(here, 'Corpus/descriptors', name), 'wb').write(data)
