/**
 * Chunk buffers that start on a page boundary, so that a volume can write them with O_DIRECT
 * (see volume.ts). Node has no aligned allocation and its own buffers start wherever malloc put
 * them; a WebAssembly memory, though, is mapped whole pages from the operating system, so
 * buffers carved from it at multiples of its 64 KiB page are aligned for any block device.
 * Nothing depends on that for correctness: a write whose buffer the kernel finds misaligned is
 * refused with EINVAL and made again through the page cache.
 */

/** The alignment O_DIRECT asks of buffer address, length and offset (4 KiB covers 512 B too). */
export const DIRECT_IO_BLOCK = 4096;

const WASM_PAGE = 65536;

/** Regions made here: the only memory known to start on a page boundary. */
const alignedRegions = new WeakSet<ArrayBufferLike>();

interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

// The ES lib of this project does not declare WebAssembly (lib.dom does); Node has it.
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
};

/**
 * `count` buffers of `size` bytes from one page-aligned region. The region is freed with the
 * last of its buffers; its pages take memory only once written.
 */
export function pageAlignedBuffers(count: number, size: number): Buffer[] {
  const stride = Math.ceil(size / WASM_PAGE) * WASM_PAGE;
  const memory = new WebAssembly.Memory({ initial: (stride / WASM_PAGE) * count });
  alignedRegions.add(memory.buffer);
  return Array.from({ length: count }, (_, n) => Buffer.from(memory.buffer, n * stride, size));
}

/**
 * Bytes a buffer needs for an O_DIRECT read of up to `maxBytes` from wherever in it a block
 * starts: whole blocks, and one block more to find a boundary in memory that malloc placed.
 */
export function directReadRoom(maxBytes: number): number {
  return Math.ceil(maxBytes / DIRECT_IO_BLOCK) * DIRECT_IO_BLOCK + DIRECT_IO_BLOCK;
}

/** Whether `bytes` may go to disk with O_DIRECT: an aligned region, offset and length. */
export function directWritable(bytes: Uint8Array): boolean {
  return (
    bytes.length > 0 &&
    bytes.length % DIRECT_IO_BLOCK === 0 &&
    bytes.byteOffset % DIRECT_IO_BLOCK === 0 &&
    alignedRegions.has(bytes.buffer)
  );
}
