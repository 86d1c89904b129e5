"""A layout pass of one container instead of the whole screen (Textual internals; compat_textual).

Textual lays the whole screen out whenever any widget asks for a layout, though it knows where
the change stops: a widget's Layout message walks up only to the first ancestor whose size does
not depend on its children (``Screen._on_layout``, ``Widget._check_refresh``). A gates model
switch shows and hides parameter rows (a tagger's layer and direction, the random network's
knobs, the weights path): the sidebar's rows move, nothing else, yet each switch paid a full
pass (about 12 ms of a 25 ms switch). ``relayout_island`` arranges only such a container, when
it opts in (``LAYOUT_ISLAND = True``) and is the only place a layout was asked for: Textual's
own arrangement of it as a root, moved to where the container sits on the screen. The map this
leaves equals a full pass's (tests/test_local_layout.py compares them); anything it does not
handle falls back to Textual's pass.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual._compositor import Compositor, MapGeometry
from textual.widget import Widget


def _island(screen: Any) -> Any:
    """The one container every pending layout request stops at, if it is an island."""
    asked = screen._layout_widgets
    roots = {node for node in asked if not node.styles.auto_dimensions}
    if len(roots) != 1:
        return None
    (root,) = roots
    if root is screen or not getattr(root, "LAYOUT_ISLAND", False):
        return None
    # every other node asked must lie inside the island (an auto-sized one between)
    if any(node is not root and root not in node.ancestors for node in asked):
        return None
    return root


def _inside(widget: Any, root: Any) -> bool:
    node = widget
    while node is not None:
        if node is root:
            return True
        node = node._parent
    return False


def _placed(widget: Any, geometry: MapGeometry, root: Any, root_geometry: MapGeometry,
            shift: int) -> MapGeometry | None:  # fmt: skip
    """A geometry from arranging the island alone (at the origin), as a whole-screen pass
    places it; None for what such a pass places otherwise (an overlay)."""
    region, order, clip, virtual_size, container_size, virtual_region, dock_gutter = geometry
    offset = root_geometry.region.offset
    if widget is root:
        return root_geometry._replace(virtual_size=virtual_size, container_size=container_size)
    if len(order) == 1:  # the island's scrollbars: placed in its order and clip
        return MapGeometry(region + offset, root_geometry.order, root_geometry.clip,
                           virtual_size, container_size, virtual_region + offset,
                           root_geometry.dock_gutter)  # fmt: skip
    if order[0] != (0, 0, 0):
        return None
    # below the island each level's layer order counts down from the island's own
    order = root_geometry.order + tuple((a, b, c + shift) for a, b, c in order[1:])
    return MapGeometry(region + offset, order, (clip + offset).intersection(root_geometry.clip),
                       virtual_size, container_size, virtual_region, dock_gutter)  # fmt: skip


def relayout_island(screen: Any) -> bool:
    """Lay out only the island container the pending layout requests stop at (module
    docstring) and repaint what moved; False (nothing done) when a whole-screen pass is due."""
    compositor = screen._compositor
    root = _island(screen)
    if root is None or compositor.root is not screen or compositor.size != screen.outer_size:
        return False
    if compositor._full_map_invalidated:  # a scroll arranged only what shows: map unknown
        return False
    old_map = compositor._full_map
    root_geometry = old_map.get(root)
    if root_geometry is None or root not in compositor.widgets:
        return False
    region = root_geometry.region
    if not region or root._cover_widget is not None:
        return False
    sub_map, sub_widgets = Compositor()._arrange_root(root, region.size, visible_only=False)
    shift = root_geometry.order[-1][2]
    new_part: dict[Any, MapGeometry] = {}
    for widget, geometry in sub_map.items():
        placed = _placed(widget, geometry, root, root_geometry, shift)
        if placed is None:
            return False
        new_part[widget] = placed
    old_part = {w: g for w, g in old_map.items() if _inside(w, root)}
    old_widgets = {w for w in compositor.widgets if _inside(w, root)}
    sub_widgets = {w for w in sub_widgets if _inside(w, root)}

    full_map = {w: g for w, g in old_map.items() if w not in old_part}
    full_map.update(new_part)
    compositor._full_map = full_map
    compositor.widgets = (compositor.widgets - old_widgets) | sub_widgets
    compositor._cuts = compositor._layers = compositor._layers_visible = None
    compositor._visible_widgets = compositor._visible_map = None
    changes = new_part.items() ^ old_part.items()
    screen_region = compositor.size.region
    if screen_region not in compositor._dirty_regions:
        compositor._dirty_regions.update(
            r for r in (g.clip.intersection(g.region) for _, g in changes) if r
        )
    resized = {
        w for w, g in changes if w in old_part and w in new_part and old_part[w].region.size
        != g.region.size
    }  # fmt: skip
    shown = new_part.keys() - old_part.keys()
    screen._layout_widgets.clear()
    for widget in old_widgets - sub_widgets:
        widget.post_message(events.Hide())
    for widget, geometry in new_part.items():
        region_, _, _, virtual_size, container_size, *_ = geometry
        # layout=False: a new virtual size asks for no second pass (Textual's whole pass
        # asks for one; it arranges what this one just did). A scrollbar shown or hidden
        # still asks, and gets Textual's pass.
        widget._size_updated(region_.size, virtual_size, container_size, layout=False)
        if widget in shown or widget in resized:
            widget.post_message(events.Resize(region_.size, virtual_size, container_size))
    for widget in shown:
        widget.post_message(events.Show())
    return True


def layout_directly(widget: Any) -> bool:
    """What the hop of ``widget``'s layout request ends in, done now: its ancestors' cached
    arrangements dropped up to the first whose size does not follow its children
    (``Widget._check_refresh``), and the screen told that they need a layout
    (``Screen._on_layout``). A model switch shows and hides parameter rows before its result
    comes; through the rows' and the screen's message queues the request reached the screen
    after the result had been painted, and the panel was laid out in a second paint. False
    (nothing done) where that hop must run: no layout asked, a style refresh or a scroll
    pending, a widget not on the current screen."""
    if not widget._layout_required or widget._refresh_styles_required or widget._scroll_required:
        return False
    if widget._parent is None or widget._closing or not widget.is_mounted:
        return False
    try:
        screen = widget.screen
    except Exception:  # no screen: closing
        return False
    if not screen.is_current:
        return False
    widget._layout_required = False
    asked = screen._layout_widgets
    needed = False
    node = widget
    for ancestor in widget.ancestors:
        if not isinstance(ancestor, Widget):
            break
        ancestor._clear_arrangement_cache()
        ancestor._layout_updates += 1
        if ancestor not in asked:
            asked[ancestor] = set()
        if node not in asked:  # Screen._on_layout's own test
            asked[ancestor].add(node)
            needed = True
        if not ancestor.styles.auto_dimensions:
            break
        node = ancestor
    if needed and not screen._layout_required:
        screen._layout_required = True
        screen.check_idle()
    return True
