#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Man pages (section 3) of libtern, generated from the kernel-doc comments
of its header: one page per TERN_API function and a libtern(3) overview.

    gen-man3.py HEADER OUTDIR VERSION
    gen-man3.py --summary SOURCE PROGRAM

The second form prints the one-sentence summary of PROGRAM from the
comment at the top of its SOURCE (" * PROGRAM: what it does."), for
help2man's NAME line.

Each function's page takes its NAME line, arguments and description from
the /** ... */ comment right before its declaration (the full kernel-doc
form "name() - summary", "@arg: text", then the description; or a one-line
comment, which is the summary) and its SYNOPSIS from the declaration
itself.  Only the standard library is used.
"""
import os
import re
import sys


def roff(text):
    """Escape text for roff: backslashes, and dots or quotes at a line start."""
    text = text.replace('\\', '\\e')
    text = re.sub(r'@(\w+)', r'\\fI\1\\fP', text)
    return '\n'.join(('\\&' + line) if line.startswith(('.', "'")) else line
                     for line in text.split('\n'))


def parse(header):
    """Yield (name, declaration, summary, [(arg, text)], description)."""
    src = open(header, encoding='utf-8').read()
    pos = 0
    for m in re.finditer(r'^TERN_API\b[^;]*;', src, re.M):
        decl = ' '.join(m.group(0).replace('TERN_API ', '', 1).split())
        name = re.search(r'(tern_\w+)\s*\(', decl).group(1)
        before = src[pos:m.start()]
        pos = m.end()
        # the last /** comment right before it, not one of a struct before that
        cm = re.search(r'/\*\*((?:(?!/\*\*).)*?)\*/\s*$', before, re.S)
        summary, args, desc = '', [], []
        if cm:
            lines = [re.sub(r'^\s*\* ?', '', ln) for ln in cm.group(1).split('\n')]
            lines = [ln.rstrip() for ln in lines]
            while lines and not lines[0].strip():
                lines.pop(0)
            first = lines.pop(0).strip() if lines else ''
            head = re.match(r'(tern_\w+)\(\)\s*-\s*(.*)', first)
            summary = head.group(2) if head else first
            cur = None
            for ln in lines:
                am = re.match(r'@(\w+):\s*(.*)', ln)
                if am and not desc:
                    cur = [am.group(1), am.group(2)]
                    args.append(cur)
                elif cur is not None and ln.startswith(('\t', '  ')) and not desc and ln.strip():
                    cur[1] += ' ' + ln.strip()
                else:
                    cur = None
                    if ln.strip() or desc:
                        desc.append(ln)
        while desc and not desc[-1].strip():
            desc.pop()
        yield name, decl, summary.rstrip(' .') or name, args, '\n'.join(desc)


def page(name, decl, summary, args, desc, version, names):
    out = ['.TH %s 3 "" "libtern %s" "libtern manual"' % (name.upper(), version),
           '.SH NAME', '%s \\- %s' % (name, roff(summary)),
           '.SH SYNOPSIS', '.nf', '.B #include <tern/tern.h>', '.PP',
           roff(decl), '.fi', '.PP',
           'Compile and link with \\fIpkg-config --cflags --libs tern\\fP.']
    if args:
        out.append('.SH ARGUMENTS')
        for arg, text in args:
            out += ['.TP', '.I %s' % arg, roff(text)]
    out.append('.SH DESCRIPTION')
    if desc:
        for para in re.split(r'\n\s*\n', desc):
            out += ['.PP', roff(' '.join(l.strip() for l in para.split('\n')))]
    else:
        out += ['.PP', roff(summary) + '.']
    out += ['.PP', 'Functions that return int return 0 or a negative errno;'
            ' tern_last_error(3) tells why a call failed.',
            '.SH SEE ALSO', '.BR libtern (3)']
    return '\n'.join(out) + '\n'


def program_summary(source, program):
    text = open(source, encoding='utf-8').read()
    m = re.search(r'^ \* %s: (.*?)(\.\s|\n \*\n)' % re.escape(program), text, re.M | re.S)
    return ' '.join(re.sub(r'\n \* ?', ' ', m.group(1)).split()) if m else program


def main():
    if sys.argv[1] == '--summary':
        print(program_summary(sys.argv[2], sys.argv[3]))
        return
    header, outdir, version = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    funcs = list(parse(header))
    names = [f[0] for f in funcs]
    for name, decl, summary, args, desc in funcs:
        with open(os.path.join(outdir, name + '.3'), 'w', encoding='utf-8') as f:
            f.write(page(name, decl, summary, args, desc, version, names))
    with open(os.path.join(outdir, 'libtern.3'), 'w', encoding='utf-8') as f:
        f.write('.TH LIBTERN 3 "" "libtern %s" "libtern manual"\n' % version)
        f.write('.SH NAME\nlibtern \\- user-space compute library of tern accelerators\n')
        f.write('.SH SYNOPSIS\n.nf\n.B #include <tern/tern.h>\n.fi\n.PP\n'
                'Compile and link with \\fIpkg-config --cflags --libs tern\\fP.\n')
        f.write('.SH DESCRIPTION\nlibtern opens tern devices, creates contexts and buffers,'
                ' encodes command buffers, submits them and waits for their fences.'
                ' Its functions:\n')
        for name, _, summary, _, _ in funcs:
            f.write('.TP\n.BR %s (3)\n%s\n' % (name, roff(summary)))
    print('%d pages' % (len(funcs) + 1))


if __name__ == '__main__':
    main()
