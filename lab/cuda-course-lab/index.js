// The CUDA course's JupyterLab plugin: CUDA C files (.cu, .cuh) open in the file editor with the
// C++ highlighting JupyterLab already has (it knows no .cu of its own).
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

const EXTENSIONS = ['cu', 'cuh'];
const MIME = 'text/x-cuda-src';

export default {
  id: 'cuda-course-lab:cuda-files',
  description: 'Open .cu and .cuh files in the editor, highlighted as C++.',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: (app, languages) => {
    const cpp = languages.findByName('C++');
    languages.addLanguage({
      name: 'CUDA',
      displayName: 'CUDA C++',
      mime: MIME,
      extensions: EXTENSIONS,
      load: () => cpp.load()
    });
    app.docRegistry.addFileType({
      name: 'cuda',
      displayName: 'CUDA C++',
      extensions: EXTENSIONS.map(ext => `.${ext}`),
      mimeTypes: [MIME],
      fileFormat: 'text',
      contentType: 'file'
    });
  }
};
