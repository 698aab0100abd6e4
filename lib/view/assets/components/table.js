/**
 * The samples table: TanStack Virtual (virtual-core) decides which rows are in view, TanStack Table
 * (table-core) turns those rows and the column definitions into header groups and cells, and sorting is table
 * state whose changes go to the caller (the rows are sorted over the whole run by lib/view/assets/query.js,
 * so the table is told `manualSorting`). Only the rows in view exist in the DOM, whatever the run's size.
 * @module
 */
import {
  createTable,
  elementScroll,
  getCoreRowModel,
  html,
  observeElementOffset,
  observeElementRect,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  Virtualizer,
} from "../vendor.js";

const ROW_HEIGHT = 30;

/** Returns the virtualizer of a scroll element, created once; `rerender` is called when the window moves. */
function useVirtualizer(count, scrollRef, rerender) {
  const ref = useRef(null);
  if (!ref.current) {
    ref.current = new Virtualizer({
      count,
      getScrollElement: () => scrollRef.current,
      estimateSize: () => ROW_HEIGHT,
      overscan: 12,
      scrollToFn: elementScroll,
      observeElementRect,
      observeElementOffset,
      onChange: () => rerender(),
    });
  }
  const virtualizer = ref.current;
  virtualizer.setOptions({ ...virtualizer.options, count });
  useEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}

/** Returns the table-core table, created once and given the current rows, columns and sorting each render. */
function useTable(data, columns, sorting, onSortingChange) {
  const ref = useRef(null);
  if (!ref.current) {
    ref.current = createTable({
      data: [],
      columns,
      getCoreRowModel: getCoreRowModel(),
      state: {},
      onStateChange: () => {},
      renderFallbackValue: null,
    });
  }
  const table = ref.current;
  table.setOptions((previous) => ({
    ...previous,
    data,
    columns,
    state: { ...table.initialState, sorting },
    manualSorting: true,
    enableSortingRemoval: true,
    getRowId: (row) => String(row.position),
    onSortingChange: (updater) => onSortingChange(typeof updater === "function" ? updater(sorting) : updater),
  }));
  return table;
}

/**
 * A virtualised table of `count` rows: `rowAt(i)` returns the i-th row (an object with `position`), `columns`
 * are table-core column definitions (`cell` renders a cell), `sorting` is `[{ id, desc }]` or `[]`; a new
 * `resetKey` (the filter) scrolls back to the top.
 */
export function VirtualTable({ count, rowAt, columns, sorting, onSortingChange, resetKey, height = 560 }) {
  const scrollRef = useRef(null);
  // A new filter or order starts at the top.
  useEffect(() => {
    if (scrollRef.current) scrollRef.current.scrollTop = 0;
  }, [resetKey]);
  const [, rerender] = useReducer((x) => x + 1, 0);
  const virtualizer = useVirtualizer(count, scrollRef, rerender);
  const items = virtualizer.getVirtualItems();
  const table = useTable(items.map((item) => rowAt(item.index)), columns, sorting, onSortingChange);
  const top = items.length ? items[0].start : 0;
  const bottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const width = table.getVisibleLeafColumns().length;
  return html`
    <div class="table-scroll" ref=${scrollRef} style=${`height:${height}px`}>
      <table class="samples">
        <thead>
          ${table.getHeaderGroups().map((group) =>
            html`<tr key=${group.id}>${
              group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                return html`
                  <th key=${header.id} class=${header.column.getCanSort() ? "sortable" : ""}
                    onClick=${header.column.getToggleSortingHandler()}
                    title=${header.column.columnDef.meta?.title ?? ""}>
                                ${header.column.columnDef.header}${sorted === "asc"
                                  ? " ▲"
                                  : sorted === "desc"
                                  ? " ▼"
                                  : ""}
                              </th>
                `;
              })
            }</tr>`
          )}
        </thead>
        <tbody>
          ${top > 0
            ? html`
              <tr class="spacer" style=${`height:${top}px`}>
                <td colspan=${width}></td>
              </tr>
            `
            : null}
          ${table.getRowModel().rows.map((row) =>
            html`<tr key=${row.id} data-position=${row.original.position}>${
              row.getVisibleCells().map((cell) =>
                html`<td key=${cell.id} class=${cell.column.columnDef.meta?.className ?? ""}>${
                  cell.column.columnDef.cell(cell.getContext())
                }</td>`
              )
            }</tr>`
          )}
          ${bottom > 0
            ? html`
              <tr class="spacer" style=${`height:${bottom}px`}>
                <td colspan=${width}></td>
              </tr>
            `
            : null}
        </tbody>
      </table>
    </div>
  `;
}
