// Shared by the H200 developer scripts: copies `bytes` of a GPU buffer back as 32-bit words.
export async function readback(device, buf, bytes) {
  const st = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, st, 0, bytes);
  device.queue.submit([enc.finish()]);
  await st.mapAsync(GPUMapMode.READ);
  const out = new Uint32Array(st.getMappedRange().slice(0));
  st.destroy();
  return out;
}
