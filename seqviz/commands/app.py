"""`seqviz` with no sub-command: validate --scene/--set/--weights, then open the Textual app."""

from __future__ import annotations

from typing import Any


def resolve(args: Any) -> tuple[str, Any]:
    """(scene name, validated values) from the parsed arguments (argparse's, or cli's for no
    arguments); ValueError in one line if bad."""
    from seqviz.scenes import get_scene

    weights = getattr(args, "weights", None)
    vocab = getattr(args, "vocab", None)
    if vocab is not None:
        if not weights:
            raise ValueError("--vocab is the vocabulary of a PyTorch LM; give it with --weights.")
        from seqviz.models.torch_lm import converted

        weights = str(converted(weights, vocab))  # a seqviz LM file, which the scenes read
    scene_name = getattr(args, "scene", None) or ("gates" if weights else "vanishing")
    scene = get_scene(scene_name)
    values = scene.parse_settings(getattr(args, "settings", None) or [])
    if weights:
        if scene.name != "gates":
            raise ValueError(f"--weights opens the gates scene, not {scene.name}")
        from seqviz import models

        path = models.resolve(weights)  # a file, or a shipped model's name
        if not path.exists():
            raise FileNotFoundError(f"no such weights file: {path}")
        from seqviz.scenes.gates import is_lm_file, load_model, load_weights

        values = scene.make({"model": "file", "weights": str(path)}, values)
        if is_lm_file(str(path)):
            load_model(values)  # a `seqviz train` model: read with its own vocabulary
        else:
            load_weights(str(path))  # refuse an unreadable file before the app starts
    return scene.name, values


def state_app(args: Any) -> Any:
    """The app `seqviz --state STRING` opens; a bad string is refused before any app starts."""
    from seqviz.lecture.state import demo_of, open_app
    from seqviz.scenes.state import read

    if args.scene or args.settings or args.weights:
        raise ValueError("--state goes alone: the state names the scene and its values")
    state = read(args.state)
    demo_of(state)  # a step that does not exist is refused before the terminal is asked for
    from seqviz.commands.terminal import check_terminal

    check_terminal()
    return open_app(state, warm_kernels=True)


def launch(args: Any) -> int:
    import gc

    from seqviz.commands.terminal import check_terminal, run_app

    # The cyclic collector walks the objects start-up makes (imports, widgets: ~200,000) again
    # and again while they are made, about a tenth of the launch. It is off until the first
    # frame; the app has frozen them by then (SeqvizApp._freeze_heap), so later collections
    # walk only what comes after.
    gc.disable()
    try:
        if getattr(args, "state", None):
            app = state_app(args)
        else:
            scene_name, values = resolve(args)
            check_terminal()  # before the app is built: with no terminal, say so and stop
            from dataclasses import asdict

            from seqviz.ui.app import SeqvizApp

            app = SeqvizApp(scene=scene_name, values=asdict(values), warm_kernels=True)
        app.after_first_frame(gc.enable)
        code = run_app(app)
        gc.freeze()  # the process ends now: its last collection need not walk the whole heap
        return code
    finally:
        gc.enable()
