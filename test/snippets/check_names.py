"""Checks Python modules the way the interpreter sees them: each compiles, every global name it reads
is defined (imported, assigned or a builtin), and every name it imports is read somewhere.

Reads a JSON object {name: source} on standard input; writes {name: [problem, ...]}."""
import builtins
import json
import symtable
import sys


def problems(source):
    try:
        compile(source, "<snippet>", "exec")
    except SyntaxError as error:
        return [f"SyntaxError: {error.msg} (line {error.lineno}): {(error.text or '').strip()}"]
    module = symtable.symtable(source, "<snippet>", "exec")
    defined = {s.get_name() for s in module.get_symbols() if s.is_assigned() or s.is_imported()}
    imported = {s.get_name() for s in module.get_symbols() if s.is_imported()}
    read_globals = set()

    def collect(table):
        # Names read in the module itself, or read in a function or class without being bound
        # there (implicit globals), must exist at module level.
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (table.get_type() == "module" or symbol.is_global()):
                read_globals.add(symbol.get_name())
        for child in table.get_children():
            collect(child)

    collect(module)
    undefined = sorted(read_globals - defined - set(dir(builtins)))
    unused = sorted(imported - read_globals)
    return [f"undefined name: {name}" for name in undefined] + [f"unused import: {name}" for name in unused]


json.dump({name: problems(source) for name, source in json.load(sys.stdin).items()}, sys.stdout)
