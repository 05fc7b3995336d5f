"""afl-showmap -r output read as labels, as corpus-distill writes them ("000123:4"): raw hit
counts classified by the intended ranges 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ (Debian's AFL++
4.04c classifies them wrongly), map index 0 left out (it is no edge). For the Python parts of the
end-to-end tests, which run with this directory on PYTHONPATH."""
import os


def hit_class(count):
    for k, lim in enumerate((1, 2, 3, 7, 15, 31, 127)):
        if count <= lim:
            return k + 1
    return 8


def labels(path):
    """The labels of one afl-showmap -r output file."""
    out = set()
    for line in open(path):
        slot, count = map(int, line.split(":"))
        if count and slot:
            out.add("%06d:%d" % (slot, hit_class(count)))
    return out


def labels_of_dir(d):
    """The labels of every output file in directory d."""
    out = set()
    for f in os.listdir(d):
        out |= labels(os.path.join(d, f))
    return out


def edge(label):
    """The map slot of a coverage label."""
    return int(label.split(":")[0])
