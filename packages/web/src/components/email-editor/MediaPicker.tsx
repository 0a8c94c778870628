import {
  Alert,
  Button,
  FileButton,
  Group,
  Image,
  Loader,
  Modal,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { MEDIA_LIMITS, mediaApi, type TMedia } from '@sendwell/contracts';
import { IconPhotoUp, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { ApiError, callRoute } from '../../app/api';

const mediaKey = ['media', 'library'] as const;

export const useUploadImage = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('image', file);
      return callRoute(mediaApi.upload, { body: form });
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: mediaKey }),
    meta: { reportErrors: false },
  });
};

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Upload an image or pick one from the library (issue 46 §4). The uploaded file is re-encoded
 * by the server; its URL (`PUBLIC_URL/media/<hash>`) is what the email loads.
 */
export const MediaPicker = ({
  opened,
  onClose,
  onPick,
}: {
  opened: boolean;
  onClose: () => void;
  onPick: (media: Pick<TMedia, 'url' | 'name' | 'width'>) => void;
}) => {
  const queryClient = useQueryClient();
  const library = useQuery({ queryKey: mediaKey, queryFn: () => callRoute(mediaApi.list), enabled: opened });
  const upload = useUploadImage();
  const remove = useMutation({
    mutationFn: (id: number) => callRoute(mediaApi.delete, { params: { id } }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: mediaKey }),
  });
  const [error, setError] = useState<string | null>(null);
  const resetFile = useRef<() => void>(null);

  const chooseFile = (file: File | null) => {
    resetFile.current?.();
    if (!file) return;
    setError(null);
    if (file.size > MEDIA_LIMITS.maxBytes) {
      setError('An image may be at most 5 MB.');
      return;
    }
    upload.mutate(file, {
      onSuccess: ({ data }) => {
        onPick(data);
        onClose();
      },
      onError: (failure) => setError(failure instanceof ApiError ? failure.message : 'The upload failed. Try again.'),
    });
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Choose an image" size="lg" centered={false}>
      <Stack>
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            PNG, JPEG, GIF or WebP, up to 5 MB. Photos are cleaned of their metadata (camera, place).
          </Text>
          <FileButton onChange={chooseFile} accept="image/png,image/jpeg,image/gif,image/webp" resetRef={resetFile}>
            {(props) => (
              <Button leftSection={<IconPhotoUp size={16} aria-hidden />} loading={upload.isPending} {...props}>
                Upload an image
              </Button>
            )}
          </FileButton>
        </Group>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {library.isPending ? (
          <Loader size="sm" aria-label="Loading your images" />
        ) : library.data ? (
          <>
            <Stack gap={4}>
              <Text size="xs" c="dimmed">
                Your library: {megabytes(library.data.used)} of {megabytes(library.data.quota)}
              </Text>
              <Progress
                value={(library.data.used / library.data.quota) * 100}
                aria-label="Library space used"
                size="sm"
              />
            </Stack>
            {library.data.data.length === 0 ? (
              <Text size="sm">No images yet: upload one.</Text>
            ) : (
              <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
                {library.data.data.map((media) => (
                  <Stack key={media.id} gap={4}>
                    <UnstyledButton
                      onClick={() => {
                        onPick(media);
                        onClose();
                      }}
                      aria-label={`Use ${media.name}`}
                      style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4 }}
                    >
                      <Image src={media.url} alt="" h={90} fit="contain" />
                    </UnstyledButton>
                    <Group gap={4} justify="space-between" wrap="nowrap">
                      <Text size="xs" truncate title={media.name}>
                        {media.name}
                      </Text>
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        color="red"
                        aria-label={`Delete ${media.name}`}
                        onClick={() => remove.mutate(media.id)}
                      >
                        <IconTrash size={12} aria-hidden />
                      </Button>
                    </Group>
                  </Stack>
                ))}
              </SimpleGrid>
            )}
          </>
        ) : null}
      </Stack>
    </Modal>
  );
};
