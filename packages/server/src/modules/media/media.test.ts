import { randomBytes } from 'node:crypto';
import { MEDIA_MESSAGES } from '@sendwell/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, seedUser, startTestApp, type TAgent, type TTestApp } from '../../../test/app';

let t: TTestApp;
let second: TTestApp;

beforeAll(async () => {
  // A quota of 1 MB, so the test fills it with a few images.
  const env = { MEDIA_QUOTA_MB: '1', LOGIN_LIMIT_PER_IP: '1000', PUBLIC_URL: 'https://mail.example.test' };
  t = await startTestApp(env);
  // A second web process on the same database.
  second = await startTestApp(env, { databaseUrl: t.databaseUrl });
});

afterAll(async () => {
  await second?.close();
  await t?.close();
});

const signedIn = async () => {
  const user = await seedUser(t.platform);
  const agent = createAgent(t.app);
  await agent.signIn(user.email, user.password);
  return { user, agent };
};

const upload = async (agent: TAgent, bytes: Buffer, filename: string, path = '/api/media', field = 'image') => {
  const form = new FormData();
  form.set(field, new Blob([new Uint8Array(bytes)]), filename);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return agent.post(path, Buffer.from(await request.arrayBuffer()), {
    headers: { 'content-type': request.headers.get('content-type')! },
  });
};

/** A small picture with EXIF that names a camera and a place, as phones write it. */
const photoWithExif = (format: 'jpeg' | 'png' | 'webp', width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } } })
    .withExif({ IFD0: { Make: 'SecretCam', Copyright: 'Private person' }, IFD3: { GPSLatitudeRef: 'N' } })
    [format]()
    .toBuffer();

/** Random pixels: a PNG that does not compress, for filling the quota. */
const noisePng = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();

const hashOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('image uploads', () => {
  it('stores a JPEG re-encoded without its metadata, served from PUBLIC_URL/media/<hash> for a year', async () => {
    const { agent } = await signedIn();
    const original = await photoWithExif('jpeg');
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const response = await upload(agent, original, 'holiday.jpg');
    expect(response.statusCode, response.body).toBe(200);
    const media = response.json().data;
    expect(media).toMatchObject({ name: 'holiday.jpg', content_type: 'image/jpeg', width: 64, height: 48 });
    expect(media.url).toMatch(/^https:\/\/mail\.example\.test\/media\/[0-9a-f]{64}$/);

    const served = await t.app.inject({ method: 'GET', url: `/media/${hashOf(media.url)}` });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    const metadata = await sharp(served.rawPayload).metadata();
    expect(metadata.exif).toBeUndefined();
    expect(metadata.xmp).toBeUndefined();
    expect(served.rawPayload.includes(Buffer.from('SecretCam'))).toBe(false);
    expect(served.rawPayload.includes(Buffer.from('Private person'))).toBe(false);

    // A browser that has it asks again with its tag and is told it has not changed.
    const again = await t.app.inject({
      method: 'GET',
      url: `/media/${hashOf(media.url)}`,
      headers: { 'if-none-match': served.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('takes PNG, GIF and WebP, scales a wide image down to 1200 pixels and turns a photo upright', async () => {
    const { agent } = await signedIn();
    const png = await upload(agent, await photoWithExif('png', 2400, 100), 'wide.png');
    expect(png.json().data).toMatchObject({ content_type: 'image/png', width: 1200, height: 50 });
    const gif = await upload(
      agent,
      await sharp({ create: { width: 10, height: 10, channels: 3, background: '#00ff00' } })
        .gif()
        .toBuffer(),
      'a.gif',
    );
    expect(gif.json().data).toMatchObject({ content_type: 'image/gif' });
    const webp = await upload(agent, await photoWithExif('webp'), 'a.webp');
    expect(webp.json().data).toMatchObject({ content_type: 'image/webp' });
    // Orientation 6: stored 40 × 20, meant to be seen turned a quarter, 20 × 40.
    const turned = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#000' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const upright = await upload(agent, turned, 'turned.jpg');
    expect(upright.json().data).toMatchObject({ width: 20, height: 40 });
  });

  it('refuses SVG (it can carry scripts), other files, broken images and the same bytes under an image name', async () => {
    const { agent } = await signedIn();
    const svg = Buffer.from(
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    );
    const refusedSvg = await upload(agent, svg, 'logo.png');
    expect(refusedSvg.statusCode).toBe(415);
    expect(refusedSvg.json().message).toBe(MEDIA_MESSAGES.svg);
    const html = await upload(agent, Buffer.from('<html><script>alert(1)</script></html>'), 'page.jpg');
    expect(html.statusCode).toBe(415);
    expect(html.json().message).toBe(MEDIA_MESSAGES.type);
    const pdf = await upload(agent, Buffer.from('%PDF-1.7 ...'), 'doc.pdf');
    expect(pdf.statusCode).toBe(415);
    const broken = Buffer.concat([(await photoWithExif('png')).subarray(0, 40), Buffer.alloc(40)]);
    const unreadable = await upload(agent, broken, 'broken.png');
    expect(unreadable.statusCode).toBe(422);
    expect(unreadable.json().message).toBe(MEDIA_MESSAGES.unreadable);
    const missing = await upload(agent, await photoWithExif('png'), 'a.png', '/api/media', 'file');
    expect(missing.statusCode).toBe(422);
    expect((await agent.get('/api/media')).json().data).toEqual([]);
  });

  it('refuses a file over 5 MB before storing anything', async () => {
    const { agent } = await signedIn();
    const big = Buffer.concat([await photoWithExif('png'), Buffer.alloc(5 * 1024 * 1024 + 10)]);
    const response = await upload(agent, big, 'big.png');
    expect(response.statusCode).toBe(413);
    expect(response.json().message).toBe(MEDIA_MESSAGES.tooLarge);
    expect((await agent.get('/api/media')).json().data).toEqual([]);
  });

  it('holds each user to their quota; the same picture twice counts once; a deletion frees its room', async () => {
    const { agent } = await signedIn();
    // About 300 KB each once stored (noise does not compress): three fit in 1 MB, a fourth does not.
    const images = await Promise.all([1, 2, 3, 4].map(() => noisePng(320, 320)));
    const stored = [];
    for (const image of images.slice(0, 3)) {
      const response = await upload(agent, image, 'noise.png');
      expect(response.statusCode, response.body).toBe(200);
      stored.push(response.json().data);
    }
    const again = await upload(agent, images[0]!, 'same.png');
    expect(again.statusCode).toBe(200);
    expect(again.json().data.id).toBe(stored[0].id);
    const over = await upload(agent, images[3]!, 'fourth.png');
    expect(over.statusCode).toBe(413);
    expect(over.json().message).toBe(MEDIA_MESSAGES.quota(1));
    const library = (await agent.get('/api/media')).json();
    expect(library.data).toHaveLength(3);
    expect(library.used).toBe(stored.reduce((sum, media) => sum + media.size, 0));
    expect(library.quota).toBe(1024 * 1024);

    expect((await agent.delete(`/api/media/${stored[1].id}`)).statusCode).toBe(200);
    const deletedUrl = `/media/${hashOf(stored[1].url)}`;
    expect((await t.app.inject({ method: 'GET', url: deletedUrl })).statusCode).toBe(404);
    expect((await upload(agent, images[3]!, 'fourth.png')).statusCode).toBe(200);
  });

  it("never shows or deletes another user's image (404), but serves every image publicly by its hash", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const media = (await upload(owner.agent, await photoWithExif('png'), 'mine.png')).json().data;
    expect((await other.agent.get('/api/media')).json().data).toEqual([]);
    expect((await other.agent.delete(`/api/media/${media.id}`)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/media/${hashOf(media.url)}` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/media/not-a-hash' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/media/${'0'.repeat(64)}` })).statusCode).toBe(404);
  });

  it('is served by every web process: uploaded through one, read from another', async () => {
    const { agent } = await signedIn();
    const media = (await upload(agent, await photoWithExif('webp'), 'shared.webp')).json().data;
    const fromSecond = await second.app.inject({ method: 'GET', url: `/media/${hashOf(media.url)}` });
    expect(fromSecond.statusCode).toBe(200);
    expect(fromSecond.headers['content-type']).toBe('image/webp');
    expect((await sharp(fromSecond.rawPayload).metadata()).width).toBe(64);
  });

  it("answers the spec's drip upload, POST /campaigns/add-temporary-image, with the image's URL", async () => {
    const { agent } = await signedIn();
    const response = await upload(agent, await photoWithExif('jpeg'), 'step.jpg', '/api/campaigns/add-temporary-image');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: true, message: MEDIA_MESSAGES.uploaded });
    expect(response.json().url).toMatch(/^https:\/\/mail\.example\.test\/media\/[0-9a-f]{64}$/);
    expect((await agent.get('/api/media')).json().data).toHaveLength(1);
    const svg = await upload(
      agent,
      Buffer.from('<svg onload="alert(1)"/>'),
      'x.svg',
      '/api/campaigns/add-temporary-image',
    );
    expect(svg.statusCode).toBe(415);
  });

  it('needs a session and the CSRF token to upload', async () => {
    const anonymous = createAgent(t.app);
    expect((await upload(anonymous, await photoWithExif('png'), 'a.png')).statusCode).toBe(401);
    const { agent } = await signedIn();
    const response = await agent.post('/api/media', Buffer.from('x'), {
      headers: { 'x-csrf-token': 'wrong', 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(response.statusCode).toBe(403);
  });
});
