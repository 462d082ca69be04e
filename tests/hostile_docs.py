"""A corpus of broken and hostile documents, generated at test time (nothing large is committed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pypdfium2 as pdfium
from pypdf import PdfReader, PdfWriter

from tests.conftest import BROKER, SIFANG

SCANNED = Path(__file__).resolve().parent / "pdfs" / "scanned_tianjian_letter_p1-2.pdf"
ODD_NAMES = ["a file with spaces.pdf", "报告 ✓ (最终版).pdf", "$(touch pwned); `id` 'q' \"d\" & | ; *.pdf"]


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF of the given object bodies (object 1 is the catalog), with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _one_page(stream: bytes, objects: tuple[bytes, ...] = (), xobjects: bytes = b"", page_keys: bytes = b"") -> bytes:
    """A one-page PDF (612 × 842 pt) drawing ``stream`` with Helvetica as /F1; ``objects`` follow as objects 6, 7 …,
    ``xobjects`` names some of them in the page's resources ("/Im1 6 0 R"), ``page_keys`` adds to the page."""
    resources = b"/Font << /F1 5 0 R >>" + (b" /XObject << %s >>" % xobjects if xobjects else b"")
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R %s /Resources << %s >> >>"
            % (page_keys, resources),
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            *objects,
        ]
    )


def many_text_items(count: int) -> bytes:
    """One page with ``count`` separately positioned text items (a grid of tiny numbers)."""
    ops = [b"BT /F1 2 Tf"]
    for i in range(count):
        x, y = 10 + (i % 290) * 2, 10 + (i // 290) * 2.2
        ops.append(b"1 0 0 1 %.1f %.1f Tm (%d) Tj" % (x, 800 - (y % 790), i % 10))
    ops.append(b"ET")
    return _one_page(b"\n".join(ops))


def page_tree_bomb() -> bytes:
    """A page tree that claims a billion pages but holds one (a classic PDF bomb)."""
    return _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R 3 0 R 3 0 R 3 0 R] /Count 1000000000 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        ]
    )


def blank_pages(count: int) -> pdfium.PdfDocument:
    document = pdfium.PdfDocument.new()
    for _ in range(count):
        document.new_page(612, 792)
    return document


def make_corpus(folder: Path, long_pages: int = 2000) -> dict[str, str]:
    """Write the corpus into ``folder``; returns {file name: what it is}."""
    folder.mkdir(parents=True, exist_ok=True)
    what: dict[str, str] = {}

    def put(name: str, data: bytes, description: str) -> None:
        (folder / name).write_bytes(data)
        what[name] = description

    good = BROKER.read_bytes()
    put("zero.pdf", b"", "zero bytes")
    put("truncated.pdf", good[: len(good) // 3], "the first third of a real PDF")
    put("not-a-pdf.pdf", b"<html><body>quarterly results</body></html>\n" * 20, "HTML saved under a .pdf name")
    put("bomb-page-tree.pdf", page_tree_bomb(), "a page tree claiming 1,000,000,000 pages")
    put("items-100k.pdf", many_text_items(100_000), "one page with 100,000 text items")
    for password, name in ((None, "locked-no-password.pdf"), ("s3cret", "locked-with-password.pdf")):
        writer = PdfWriter(clone_from=PdfReader(BROKER))
        writer.encrypt(user_password=password or "unknown", owner_password="owner")
        with (folder / name).open("wb") as handle:
            writer.write(handle)
        what[name] = "encrypted, password given per file" if password else "encrypted, no password given"
    with blank_pages(long_pages) as document:
        document.save(folder / "long.pdf")
    what["long.pdf"] = f"{long_pages:,} pages"
    with pdfium.PdfDocument.new() as mixed, pdfium.PdfDocument(SCANNED) as scan, pdfium.PdfDocument(SIFANG) as text:
        mixed.import_pages(scan, [0])
        mixed.import_pages(text, [4])
        mixed.save(folder / "mixed-scan-and-text.pdf")
    what["mixed-scan-and-text.pdf"] = "a scanned page then a born-digital page"
    for name in ODD_NAMES:
        shutil.copy(BROKER, folder / name)
        what[name] = "a real note under an awkward file name"
    return what


def text_page(lines: list[str]) -> bytes:
    """One page of the given lines of ASCII text (Helvetica 8 pt, 10 pt apart)."""
    ops = [b"BT /F1 8 Tf 10 TL 20 820 Td"]
    ops += [b"(%s) '" % line.encode("ascii") for line in lines]
    ops.append(b"ET")
    return _one_page(b"\n".join(ops))


def form_fanout(levels: int, fan: int = 10, where: str = "page") -> bytes:
    """One page of readable text whose drawing fans out: form object k draws form k+1 ``fan`` times, ``levels``
    deep (``fan ** levels`` draws of the last one, a filled square), from a few hundred bytes. ``where`` is
    "page" (the page's content draws form 1) or "annotation" (an annotation's appearance stream does, where text
    extraction never looks)."""
    first = 6  # objects 1–5: catalog, pages, page, content, font
    forms = []
    for level in range(levels):
        if level == levels - 1:
            body = b"0 0 1 1 re f"
            resources = b""
        else:
            body = b" ".join(b"q 1 0 0 1 %d 0 cm /X Do Q" % (i % 3) for i in range(fan))
            resources = b"/Resources << /XObject << /X %d 0 R >> >>" % (first + level + 1)
        forms.append(
            b"<< /Type /XObject /Subtype /Form /BBox [0 0 600 800] %s /Length %d >>\nstream\n%s\nendstream"
            % (resources, len(body), body)
        )
    text = b"BT /F1 12 Tf 72 720 Td (Consolidated statement of operations for the year) Tj ET"
    draw = b"q /X1 Do Q" if where == "page" else b""
    stream = text + b"\n" + draw
    annots = b""
    extra: list[bytes] = []
    if where == "annotation":
        annots = b"/Annots [%d 0 R]" % (first + levels)
        extra = [b"<< /Type /Annot /Subtype /Square /Rect [0 0 600 800] /AP << /N %d 0 R >> >>" % first]
    return _one_page(stream, (*forms, *extra), xobjects=b"/X1 %d 0 R" % first, page_keys=annots)


def _pages(streams: list[bytes]) -> bytes:
    """A PDF of one page (612 × 842 pt, Helvetica as /F1) per content stream."""
    count = len(streams)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, stream in enumerate(streams):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    return _pdf(objects)


def _tiny_lines(lines: list[str], size: float = 1.0) -> bytes:
    ops = [b"BT /F1 %g Tf %g TL 20 830 Td" % (size, size * 1.1)] + [b"(%s) '" % line.encode("ascii") for line in lines]
    ops.append(b"ET")
    return b"\n".join(ops)


def contents_bomb(entries: int = 700, lines: int = 700, pages: int = 20) -> bytes:
    """A filing whose first 12 pages are contents pages of ``entries`` entries each ("Segment review aaab 13"), every
    entry naming a later page, and whose later pages print ``lines`` lines that start like the entries' titles: a
    reader that compares every entry with every line of the page it names does entries × lines work per page."""
    words = ["".join(chr(97 + (n // 26**k) % 26) for k in range(4)) for n in range(12 * entries)]
    body_pages = pages - 12
    contents = [
        _tiny_lines([f"Segment review {words[c * entries + n]} {13 + (n * body_pages) // entries}"
                     for n in range(entries)])
        for c in range(12)
    ]  # fmt: skip
    body = [_tiny_lines([f"Segment review {words[(p * lines + n) % len(words)]}x of the year" for n in range(lines)])
            for p in range(body_pages)]  # fmt: skip
    return _pages(contents + body)


def many_names(count: int = 1500, pages: int = 3) -> bytes:
    """Pages each printing ``count`` lines, in a tiny font, that name a different company the way a filing names
    itself ("To the members of Company 123 Limited")."""
    lines = [f"To the members of Company {n} Limited" for n in range(count)]
    return _pages([_tiny_lines(lines, size=0.8) for _ in range(pages)])


def image_behind_filters(side: int = 20000) -> bytes:
    """One page of text and a ``side`` × ``side`` grey image whose samples (side² bytes: 400 MB at 20,000) sit behind
    non-image filters (Flate, then hex), under a megabyte in the file: what decodes it holds every sample."""
    import zlib

    packer = zlib.compressobj(9)
    row = b"00" * side  # one row of samples as hex text
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.compress(b">") + packer.flush()
    image = (
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 "
        b"/Filter [/FlateDecode /ASCIIHexDecode] /Length %d >>\nstream\n"
        % (side, side, len(data))
        + data
        + b"\nendstream"
    )
    stream = b"BT /F1 12 Tf 72 720 Td (Consolidated balance sheet) Tj ET\nq 500 0 0 500 50 100 cm /Im1 Do Q"
    return _one_page(stream, (image,), xobjects=b"/Im1 6 0 R")
