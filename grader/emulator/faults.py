"""The emulator's one exception, below every module of the interpreter (machine, ordering, the ops)."""


class EmulatorFault(RuntimeError):
    """A kernel did something illegal (out-of-bounds access, deadlock...) or something the emulator does
    not support; the message names the instruction and the CUDA source line."""
