"""A curses menu for the screen tests: arrow keys move the highlight, Enter
picks an item and exits printing it. The selected item is drawn in reverse
video with a '>' marker, and the cursor rests on it."""
import curses

ITEMS = ["apples", "bananas", "cherries", "dates"]


def main(stdscr):
    curses.curs_set(1)
    stdscr.keypad(True)
    sel = 0
    while True:
        stdscr.erase()
        stdscr.addstr(0, 0, "Pick a fruit (arrows, Enter):")
        for i, item in enumerate(ITEMS):
            attr = curses.A_REVERSE if i == sel else curses.A_NORMAL
            stdscr.addstr(2 + i, 2, ("> " if i == sel else "  ") + item, attr)
        stdscr.move(2 + sel, 2)
        stdscr.refresh()
        key = stdscr.getch()
        if key == curses.KEY_UP:
            sel = (sel - 1) % len(ITEMS)
        elif key == curses.KEY_DOWN:
            sel = (sel + 1) % len(ITEMS)
        elif key in (curses.KEY_ENTER, 10, 13):
            return ITEMS[sel]


print("picked", curses.wrapper(main))
